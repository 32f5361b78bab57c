"""String rewriting kernels and an SVM on them, shaped like scikit-learn.

Reference: Martin Gleize and Brigitte Grau, "A Unified Kernel Approach for Learning Typed Sentence
Rewritings", ACL-IJCNLP 2015 (kb-SRK counts Eq. 3-6, type-enriched TESRK, the normalised sum of §4.1);
the string rewriting kernel is Bu, Li and Zhu, "String Re-writing Kernel", ACL 2012.
"""

from __future__ import annotations

import time

import numpy as np

from ..config import check
from ..errors import InputError, check_fitted
from .cache import TileCache, pairs_digest, term_key
from .config import KernelTermConfig, paper_kernels
from .gram import Vocabulary, build_terms, combine, raw_block
from .svm import fit, select_c

Pair = tuple[list[str], list[str]]


class StringRewritingKernel:
    """The normalised sum of kb-SRK / TESRK terms and the PR kernel on tokenised sentence pairs.

    A kb-SRK term counts the rewriting rules of k-grams that rewrite both pairs (Gleize & Grau 2015,
    Eq. 3-6); its pattern and variable types (``id``, ``stem``, ``lemma``, ``synonym``, ...) say when
    two words match (TESRK). Every term and every k is one kernel K(x, y) / sqrt(K(x, x) K(y, y));
    their sum is normalised again (§4.1). Calling the object gives the kernel matrix.

    Parameters
    ----------
    kernels : list of dict, optional
        The terms of the sum, each ``{"kind": "srk", "k": [1, 2], "pattern_types": ["stem"],
        "variable_types": ["stem"]}`` or ``{"kind": "pr"}``. Default: the paper's paraphrase system,
        SRK k=1 [stem] + TESRK k=2..4 [stem, synonym] + PR (the synonym type needs WordNet 3.0).
    wordnet : str, optional
        WordNet 3.0 dictionary folder for the synonym/hypernym/... types.
    tile_rows : int, default 256
        Gram rows computed at a time (and cached, with a cache directory).

    Attributes
    ----------
    kernels : list of KernelTermConfig
        The validated terms.

    Raises
    ------
    InputError
        No term, an invalid term, or ``tile_rows`` below 1.

    References
    ----------
    Martin Gleize and Brigitte Grau, "A Unified Kernel Approach for Learning Typed Sentence
    Rewritings", ACL-IJCNLP 2015. Fan Bu, Hang Li and Xiaoyan Zhu, "String Re-writing Kernel", ACL 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from kcooc import StringRewritingKernel
    >>> terms = [{"kind": "srk", "k": [1, 2], "pattern_types": ["stem"], "variable_types": ["stem"]},
    ...          {"kind": "pr"}]  # no WordNet type: runs without WordNet
    >>> pairs = [("the cat sat on the mat".split(), "on the mat sat the cat".split()),
    ...          ("the dog sat on the rug".split(), "on the rug sat the dog".split()),
    ...          ("the dog sat on the rug".split(), "stocks fell sharply on monday".split())]
    >>> K = StringRewritingKernel(terms)(pairs)
    >>> K.shape, bool(np.allclose(np.diag(K), 1)), bool(np.allclose(K, K.T))
    ((3, 3), True, True)
    >>> bool(K[0, 1] > K[0, 2])  # two rewritings alike, more than a rewriting and an unrelated pair
    True
    """

    def __init__(self, kernels: list | None = None, *, wordnet: str | None = None, tile_rows: int = 256):
        terms = paper_kernels() if kernels is None else [k if isinstance(k, KernelTermConfig) else KernelTermConfig(**k)
                                                        for k in kernels]
        if not terms or tile_rows < 1:
            raise InputError("need at least one kernel term and tile_rows >= 1")
        for term in terms:
            check(term)
        self.kernels, self.wordnet, self.tile_rows = terms, wordnet, tile_rows

    def __call__(self, X: list[Pair], Y: list[Pair] | None = None) -> np.ndarray:
        """The kernel matrix of tokenised pairs.

        Parameters
        ----------
        X : list of (list of str, list of str)
            Sentence pairs (source tokens, target tokens).
        Y : list of (list of str, list of str), optional
            Other pairs; X itself when omitted.

        Returns
        -------
        ndarray of shape (len(X), len(Y))
            The normalised kernel sum, 1 on the diagonal of K(X, X).
        """
        pairs = list(X) + ([] if Y is None else list(Y))
        rows = np.arange(len(X))
        cols = rows if Y is None else np.arange(len(X), len(pairs))
        vocabulary, cache = Vocabulary(pairs), TileCache(None)
        blocks, diagonals = [], []
        for term in build_terms(self.kernels, self.wordnet):
            term.prepare(vocabulary)
            blocks.append(raw_block(term, rows, cols, Y is None, "", cache, self.tile_rows))
            diagonals.append(term.diagonal())
        return combine(blocks, diagonals, rows, cols)

    def train_test(self, train: list[Pair], test: list[Pair], cache_dir: str | None = None, on_rows=None):
        """The kernel matrices an SVM trains and predicts with, computed once per term.

        Parameters
        ----------
        train, test : list of (list of str, list of str)
            Tokenised sentence pairs.
        cache_dir : str, optional
            Keeps the Gram tiles so a rerun (or a killed run) resumes.
        on_rows : callable, optional
            ``on_rows(n)`` as n more rows are done (a progress callback).

        Returns
        -------
        train_gram : ndarray of shape (len(train), len(train))
        test_gram : ndarray of shape (len(test), len(train))
        seconds : dict of str to float
            The seconds spent per term.
        """
        vocabulary = Vocabulary(train + test)
        n_train = len(train)
        rows_train, rows_test = np.arange(n_train), np.arange(n_train, n_train + len(test))
        digest_train, digest_test = pairs_digest(train), pairs_digest(test)
        cache = TileCache(cache_dir)
        train_blocks, test_blocks, diagonals, seconds = [], [], [], {}
        for term in build_terms(self.kernels, self.wordnet):
            start = time.perf_counter()
            term.prepare(vocabulary)
            train_blocks.append(raw_block(term, rows_train, rows_train, True,
                                          term_key(term, digest_train, digest_train, True, self.wordnet), cache,
                                          self.tile_rows, on_rows))
            test_blocks.append(raw_block(term, rows_test, rows_train, False,
                                         term_key(term, digest_test, digest_train, False, self.wordnet), cache,
                                         self.tile_rows, on_rows))
            diagonals.append(term.diagonal())
            seconds["+".join(term.names)] = round(time.perf_counter() - start, 3)
        return (combine(train_blocks, diagonals, rows_train, rows_train),
                combine(test_blocks, diagonals, rows_test, rows_train), seconds)


class SRKClassifier:
    """An SVM on :class:`StringRewritingKernel`, with C chosen by k-fold cross-validation (Gleize & Grau 2015, §4.1).

    Classifies sentence pairs (paraphrase or not, correct answer or not): labels 1 and 0.

    Parameters
    ----------
    kernels : list of dict, optional
        The kernel terms, as :class:`StringRewritingKernel` (default: the paper's system).
    c : float, optional
        The SVM's C; by default the value of ``c_grid`` with the best mean held-out F1 (MRR with
        ``groups``), ties to the smaller C.
    c_grid : list of float, default [0.01, 0.1, 1, 10, 100]
        The C values cross-validation chooses from.
    folds : int, default 10
        Cross-validation folds.
    class_weight : {"none", "balanced"}, default "none"
        "balanced" weighs each class by the inverse of its frequency.
    seed : int, default 0
        Seed of the cross-validation folds.
    wordnet : str, optional
        WordNet 3.0 dictionary folder, as :class:`StringRewritingKernel`.

    Attributes
    ----------
    kernel : StringRewritingKernel
    c_ : float
        The C used.
    cv_scores_ : dict of float to float
        The mean held-out score of every C tried (empty when ``c`` was given).
    svm_ : object
        The fitted SVM on the precomputed Gram matrix.
    train_pairs_ : list of (list of str, list of str)
        The training pairs, which the decision function is a kernel sum over.

    Raises
    ------
    InputError
        A C that is not positive, ``folds`` below 2 or an unknown ``class_weight``.

    References
    ----------
    Martin Gleize and Brigitte Grau, "A Unified Kernel Approach for Learning Typed Sentence
    Rewritings", ACL-IJCNLP 2015.

    Examples
    --------
    >>> from kcooc import SRKClassifier
    >>> terms = [{"kind": "srk", "k": [1, 2], "pattern_types": ["stem"], "variable_types": ["stem"]},
    ...          {"kind": "pr"}]  # no WordNet type: runs without WordNet
    >>> sentences = ["the cat sat on the mat", "he bought a new car", "she reads books at night",
    ...              "the train left early", "we walked to the park", "birds sing in the morning"]
    >>> rewritten = ["on the mat sat the cat", "he bought a car that is new", "at night she reads books",
    ...              "early the train left", "we walked to the park today", "in the morning birds sing"]
    >>> unrelated = ["stocks fell sharply on monday", "rain is expected tomorrow", "the budget was approved",
    ...              "my sister plays the violin", "prices rose last quarter", "the server crashed twice"]
    >>> pairs = [(a.split(), b.split()) for a, b in zip(sentences * 2, rewritten + unrelated)]
    >>> labels = [1] * 6 + [0] * 6
    >>> classifier = SRKClassifier(terms, c_grid=[0.1, 1, 10], folds=3).fit(pairs, labels)
    >>> test = [("the dog sat on the mat".split(), "on the mat sat the dog".split()),
    ...         ("the dog sat on the mat".split(), "interest rates stay low".split())]
    >>> classifier.predict(test).tolist()
    [1, 0]
    """

    def __init__(self, kernels: list | None = None, *, c: float | None = None,
                 c_grid: tuple = (0.01, 0.1, 1.0, 10.0, 100.0), folds: int = 10, class_weight: str = "none",
                 seed: int = 0, wordnet: str | None = None):
        if (c is not None and c <= 0) or not c_grid or min(c_grid) <= 0 or folds < 2:
            raise InputError("need C > 0, a grid of positive C values and folds >= 2")
        if class_weight not in ("none", "balanced"):
            raise InputError(f"class_weight must be 'none' or 'balanced', got {class_weight!r}")
        self.kernel = StringRewritingKernel(kernels, wordnet=wordnet)
        self.c, self.c_grid, self.folds, self.class_weight, self.seed = c, list(c_grid), folds, class_weight, seed

    def fit(self, X: list[Pair], y, groups=None) -> "SRKClassifier":
        """Choose C (unless given) and train the SVM.

        Parameters
        ----------
        X : list of (list of str, list of str)
            Tokenised sentence pairs.
        y : array-like of int
            1 (paraphrase, correct answer) or 0 per pair.
        groups : array-like, optional
            Question ids: C is then chosen by MRR with folds by question (answer selection).

        Returns
        -------
        SRKClassifier
            self, fitted.
        """
        y = np.asarray(y, np.int64)
        if len(X) != y.size:
            raise InputError(f"{len(X)} pairs but {y.size} labels")
        gram = self.kernel(X)
        if self.c is None:
            selection = select_c(gram, y, None if groups is None else np.asarray(groups), self.c_grid, self.folds,
                                 self.seed, self.class_weight)
            self.c_, self.cv_scores_ = selection.c, selection.scores
        else:
            self.c_, self.cv_scores_ = self.c, {}
        self.train_pairs_ = list(X)
        self.svm_ = fit(gram, y, self.c_, self.class_weight)
        return self

    def decision_function(self, X: list[Pair]) -> np.ndarray:
        """The SVM's decision value of every pair.

        Parameters
        ----------
        X : list of (list of str, list of str)
            Tokenised sentence pairs.

        Returns
        -------
        ndarray of shape (len(X),)
            Above 0: paraphrase / correct answer; larger is more confident.
        """
        check_fitted(self, "svm_")
        gram = self.kernel(self.train_pairs_ + list(X))[len(self.train_pairs_):, :len(self.train_pairs_)]
        return self.svm_.decision_function(gram)

    def predict(self, X: list[Pair]) -> np.ndarray:
        """The predicted label of every pair.

        Parameters
        ----------
        X : list of (list of str, list of str)
            Tokenised sentence pairs.

        Returns
        -------
        ndarray of int, shape (len(X),)
            1 where the decision value is above 0, else 0.
        """
        return (self.decision_function(X) > 0).astype(np.int64)

    def score(self, X: list[Pair], y) -> float:
        """Accuracy on labelled pairs.

        Parameters
        ----------
        X : list of (list of str, list of str)
            Tokenised sentence pairs.
        y : array-like of int
            Their labels, 1 or 0.

        Returns
        -------
        float
            The share of pairs predicted right.
        """
        return float(np.mean(self.predict(X) == np.asarray(y)))
