"""docs/python-api.md: every example runs as written, and the package root stays light."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import needs_translit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "python-api.md")
EXAMPLES = re.findall(r"^```python\n(.*?)^```", open(PAGE, encoding="utf-8").read(), flags=re.S | re.M)


def test_the_page_has_an_example_per_method():
    code = "\n".join(EXAMPLES)
    for name in ("PHSIC", "PairClassifier", "CorrespondenceAnalysis", "SRKClassifier", "NSKClassifier",
                 "KernelizedSorting"):
        assert f"{name}(" in code or f"{name})" in code, name


@pytest.mark.parametrize("example", [pytest.param(e, marks=needs_translit) if "anyascii" in e else e for e in EXAMPLES],
                         ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs(example, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(example, PAGE, "exec"), {"__name__": "example"})


def test_import_kcooc_is_light_and_exports_every_estimator():
    code = ("import sys, kcooc; "
            "heavy = [m for m in ('numpy', 'scipy', 'numba', 'sklearn', 'click') if m in sys.modules]; "
            "print(heavy); print(sorted(kcooc.__all__) == sorted(dir(kcooc)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "True"]
    import kcooc

    for name in kcooc.__all__:
        assert getattr(kcooc, name) is not None
    with pytest.raises(AttributeError):
        kcooc.NoSuchThing  # noqa: B018
    assert issubclass(kcooc.InputError, ValueError)
