"""The public API's reference: every export of kcooc documents itself in numpydoc sections whose Examples
run (as doctests, here), and every estimator used before fitting raises kcooc.NotFittedError naming the
method to call."""

from __future__ import annotations

import doctest
import inspect

import numpy as np
import pytest

import kcooc
from kcooc import (
    PHSIC,
    PPMISVD,
    CorrespondenceAnalysis,
    InputError,
    NotFittedError,
    NSKClassifier,
    PairClassifier,
    SRKClassifier,
)

EXPORTS = [name for name in kcooc.__all__ if name != "__version__"]
ERRORS = {"InputError", "NotFittedError"}
# PairClassifier's documentation comes with the learned score it belongs to (kcooc/filtering/classifier.py).
ESTIMATORS = [name for name in EXPORTS if name not in ERRORS | {"PairClassifier"}]


def public_methods(cls: type) -> list[tuple[str, object]]:
    """Methods and properties a user calls: defined by kcooc (inherited ones too), not private."""
    found = []
    for name, member in inspect.getmembers(cls):
        if (name.startswith("_") and name != "__call__") or not (inspect.isfunction(member) or inspect.ismethod(member)
                                                                  or isinstance(member, property)):
            continue
        function = member.fget if isinstance(member, property) else member
        if function.__module__.startswith("kcooc."):
            found.append((name, function))
    return found


def sections(docstring: str | None) -> set[str]:
    lines = inspect.cleandoc(docstring or "").splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1) if set(lines[i + 1].strip()) == {"-"}}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_documents_parameters_attributes_references_and_examples(name):
    assert {"Parameters", "Attributes", "References", "Examples"} <= sections(getattr(kcooc, name).__doc__)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_public_method_documents_its_parameters_and_what_it_returns(name):
    for method_name, function in public_methods(getattr(kcooc, name)):
        signature = inspect.signature(function)
        arguments = [p for p in signature.parameters if p not in ("self", "cls")]
        found = sections(function.__doc__)
        where = f"{name}.{method_name}"
        assert function.__doc__, f"{where} has no docstring"
        if arguments:
            assert "Parameters" in found, f"{where} does not document its parameters"
        if signature.return_annotation not in (None, "None", inspect.Signature.empty):
            assert "Returns" in found, f"{where} does not document what it returns"


@pytest.mark.parametrize("name", EXPORTS)
def test_examples_run_as_doctests(name):
    if name == "PairClassifier":
        pytest.skip("PairClassifier's examples live in docs/python-api.md (tests/test_python_api.py runs them)")
    obj = getattr(kcooc, name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = doctest.DocTestFinder().find(obj, name, globs={})
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0, f"{name} has no example"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {name} failed (output above)"


def test_not_fitted_error_is_an_input_error_a_value_error_and_an_attribute_error():
    assert issubclass(NotFittedError, InputError) and issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)
    assert not hasattr(PHSIC(), "covariance_")


X = np.ones((3, 4))
UNFITTED = [
    (PHSIC, lambda m: m.score(X, X), "call fit first"),
    (PHSIC, lambda m: m.score_matrix(X, X), "call fit first"),
    (PHSIC, lambda m: m.score_features(X, X), "call fit first"),
    (PHSIC, lambda m: m.hsic(), "call fit first"),
    (PHSIC, lambda m: m.save("unused.npz"), "call fit first"),
    (PHSIC, lambda m: m.partial_fit(X, X), "call fit_maps (or fit) first"),
    (PHSIC, lambda m: m.finalize(), "call partial_fit (or fit) first"),
    (CorrespondenceAnalysis, lambda m: m.save("unused.npz", ["a"], np.ones(1)), "call fit first"),
    (PPMISVD, lambda m: m.save("unused.npz", ["a"], np.ones(1)), "call fit first"),
    (SRKClassifier, lambda m: m.predict([(["a"], ["b"])]), "call fit first"),
    (SRKClassifier, lambda m: m.decision_function([(["a"], ["b"])]), "call fit first"),
    (SRKClassifier, lambda m: m.score([(["a"], ["b"])], [1]), "call fit first"),
    (NSKClassifier, lambda m: m.predict(None), "call fit first"),
    (NSKClassifier, lambda m: m.vote(None), "call fit first"),
    (NSKClassifier, lambda m: m.score(None), "call fit first"),
    (lambda: PairClassifier(["char_ratio", "tgt_lang", "tgt_chars"]), lambda m: m.predict_proba(X[:, :3]),
     "call fit first"),
    (lambda: PairClassifier(["char_ratio"]), lambda m: m.state(), "call fit first"),
]


@pytest.mark.parametrize("make, use, message", UNFITTED,
                         ids=[f"{getattr(m, '__name__', 'PairClassifier')}-{i}"
                              for i, (m, _, _) in enumerate(UNFITTED)])
def test_an_estimator_used_before_fit_raises_not_fitted_error_naming_the_method(make, use, message):
    """(KernelizedSorting and the two kernels have nothing to call after a fit: their results are attributes.)"""
    estimator = make()
    with pytest.raises(NotFittedError, match=r"^this \w+ is not fitted yet: " + message.replace("(", r"\(")
                       .replace(")", r"\)")):
        use(estimator)
