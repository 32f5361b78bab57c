"""String rewriting kernels: the fast count against the paper's definitions on small inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kcooc.srk.cache import TileCache, term_key
from kcooc.srk.gram import PrTerm, SrkTerm, Vocabulary, combine, raw_block
from kcooc.srk.kernel import EncodedPairs
from kcooc.srk.types import TypingScheme, edit_distance_one
from kcooc.testing import kgrams, srk_by_algorithm1

from conftest import needs_wordnet

WILDCARD = None


# -- naive references -------------------------------------------------------------------------------

def all_rules(k, pattern_elements):
    """Every rule (beta_s, beta_t, tau) of length k over the pattern elements and the wildcard."""
    elements = list(pattern_elements) + [WILDCARD]
    for beta_s in itertools.product(elements, repeat=k):
        for beta_t in itertools.product(elements, repeat=k):
            ws = [i for i, e in enumerate(beta_s) if e is WILDCARD]
            wt = [j for j, e in enumerate(beta_t) if e is WILDCARD]
            if len(ws) == len(wt):
                for image in itertools.permutations(wt):
                    yield beta_s, beta_t, tuple(zip(ws, image))


def rule_matches(rule, source, target, element_matches, variable):
    """§2.2: substitute pattern elements and wildcards; linked wildcards need a variable type."""
    beta_s, beta_t, tau = rule
    return (all(e is WILDCARD or element_matches(e, w) for e, w in zip(beta_s, source))
            and all(e is WILDCARD or element_matches(e, w) for e, w in zip(beta_t, target))
            and all(variable(source[i], target[j]) for i, j in tau))


def srk_by_rules(pair1, pair2, k, classes, variable):
    """Eq. 1/3/4 literally: Phi_r counts the k-gram pairs rule r matches; K = sum_r Phi_r Phi_r.

    Pattern elements are the classes of an equivalence (a word matches its class), the case in which
    Algorithm 1's "a common pattern type" is one pattern element.
    """
    element_matches = lambda element, word: classes[word] == element  # noqa: E731
    total = 0
    for rule in all_rules(k, sorted(set(classes.values()))):
        phi = [sum(rule_matches(rule, a, b, element_matches, variable) for a in kgrams(s, k) for b in kgrams(t, k))
               for s, t in (pair1, pair2)]
        total += phi[0] * phi[1]
    return total


def fast_counts(pairs, pattern_matrix, variable_matrix, kmax):
    encoded = EncodedPairs([np.array(s) for s, _ in pairs], [np.array(t) for _, t in pairs],
                           sp.csr_matrix(pattern_matrix), sp.csr_matrix(variable_matrix), kmax)
    n = len(pairs)
    return encoded.counts(np.arange(n), np.arange(n)), encoded


# -- properties ---------------------------------------------------------------------------------------

VOCAB = 5
sequences = st.lists(st.integers(0, VOCAB - 1), min_size=1, max_size=5)
relations = st.lists(st.booleans(), min_size=VOCAB * VOCAB, max_size=VOCAB * VOCAB).map(
    lambda bits: np.array(bits).reshape(VOCAB, VOCAB))


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(sequences, sequences), min_size=2, max_size=3), pattern=relations,
       variable=relations)
def test_fast_count_equals_algorithm1_with_random_relations(pairs, pattern, variable):
    counts, _ = fast_counts(pairs, pattern, variable, 3)
    for a, b in itertools.product(range(len(pairs)), repeat=2):
        for k in (1, 2, 3):
            expected = srk_by_algorithm1(pairs[a], pairs[b], k, lambda x, y: pattern[x, y],
                                         lambda x, y: variable[x, y])
            assert counts[a, b, k - 1] == expected, (a, b, k)


@settings(max_examples=25, deadline=None)
@given(pairs=st.lists(st.tuples(sequences.map(lambda s: s[:4]), sequences.map(lambda s: s[:4])), min_size=2,
                      max_size=2),
       classes=st.lists(st.integers(0, 2), min_size=VOCAB, max_size=VOCAB), variable=relations)
def test_fast_count_equals_rule_enumeration(pairs, classes, variable):
    pattern = np.equal.outer(classes, classes)
    counts, _ = fast_counts(pairs, pattern, variable, 2)
    for k in (1, 2):
        expected = srk_by_rules(pairs[0], pairs[1], k, dict(enumerate(classes)), lambda x, y: variable[x, y])
        assert counts[0, 1, k - 1] == expected


def test_kb_srk_is_symmetric_positive_semidefinite_on_real_sentences(verse_pairs):
    words = Vocabulary(verse_pairs)
    identity = sp.identity(len(words.words), dtype=bool, format="csr")
    encoded = EncodedPairs(words.sources, words.targets, identity, identity, 4)
    n = len(verse_pairs)
    counts = encoded.counts(np.arange(n), np.arange(n)).astype(float)
    diagonal = encoded.diagonal()
    for k in range(4):
        gram = counts[:, :, k]
        assert np.array_equal(gram, gram.T)
        assert np.array_equal(np.diag(gram), diagonal[:, k])
        assert np.linalg.eigvalsh(gram)[0] > -1e-6 * np.abs(gram).max()
    assert counts[:, :, 3].sum() > 0  # 4-gram rules are shared between verses


def test_tiles_upper_triangle_and_threads_give_the_same_counts(verse_pairs):
    import numba

    words = Vocabulary(verse_pairs)
    identity = sp.identity(len(words.words), dtype=bool, format="csr")
    encoded = EncodedPairs(words.sources, words.targets, identity, identity, 3)
    n = len(verse_pairs)
    full = encoded.counts(np.arange(n), np.arange(n))
    upper = encoded.counts(np.arange(n), np.arange(n), upper=True)
    assert np.array_equal(np.triu(upper[:, :, 2]), np.triu(full[:, :, 2]))
    tiled = np.concatenate([encoded.counts(np.arange(a, min(a + 7, n)), np.arange(n)) for a in range(0, n, 7)])
    assert np.array_equal(tiled, full)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert np.array_equal(encoded.counts(np.arange(n), np.arange(n)), full)
    finally:
        numba.set_num_threads(threads)


# -- typed rules: the paper's Figure 1 ------------------------------------------------------------------

FIGURE_B = ("I heard Mary shouting .".lower().split(), "Mary was shouting .".lower().split())
FIGURE_C = ("I caught him snoring .".lower().split(), "He was sleeping .".lower().split())
PAPER_TYPES = (["hypernym", "id"], ["pronoun", "entailment", "id"])


def typed_rule_matches(rule, source, target, scheme):
    """A typed rule (pattern elements [a|b] with a ~p b) against a k-gram pair, by §2.2."""
    words = sorted(set(source + target) | {w for e in rule[0] + rule[1] if e is not WILDCARD for w in e})
    index = {w: i for i, w in enumerate(words)}
    pattern, variable = scheme.relations(words)
    for element in rule[0] + rule[1]:
        if element is not WILDCARD and not pattern[index[element[0]], index[element[1]]]:
            return False  # [a|b] is not in Sigma_p under this scheme (Eq. 2)
    return rule_matches(rule, source, target, lambda element, word: word in element,
                        lambda a, b: bool(variable[index[a], index[b]]))


@pytest.mark.parametrize("types, matches_c", [pytest.param(PAPER_TYPES, True, marks=needs_wordnet),
                                               ((["id"], ["id"]), False)])
def test_figure1_rule_a_matches_b_and_c_only_with_the_papers_types(types, matches_c):
    scheme = TypingScheme(*types)
    rule_b = ((("heard", "heard"), WILDCARD, WILDCARD), (WILDCARD, ("was", "was"), WILDCARD), ((1, 0), (2, 2)))
    rule_bc = ((("heard", "caught"), WILDCARD, WILDCARD), (WILDCARD, ("was", "was"), WILDCARD), ((1, 0), (2, 2)))
    b_source, b_target = FIGURE_B[0][1:4], FIGURE_B[1][0:3]
    c_source, c_target = FIGURE_C[0][1:4], FIGURE_C[1][0:3]
    assert typed_rule_matches(rule_b, b_source, b_target, scheme)
    assert not typed_rule_matches(rule_b, c_source, c_target, scheme)  # caught is not heard
    assert typed_rule_matches(rule_bc, b_source, b_target, scheme) is matches_c
    assert typed_rule_matches(rule_bc, c_source, c_target, scheme) is matches_c
    # the kernel counts the rules (B) and (C) share: (A) and (?, ?, .) -> (?, was, ?) with the paper's types
    words = Vocabulary([FIGURE_B, FIGURE_C])
    pattern, variable = scheme.relations(words.words)
    encoded = EncodedPairs(words.sources, words.targets, pattern, variable, 3)
    index = words.words.index
    expected = srk_by_algorithm1(FIGURE_B, FIGURE_C, 3, lambda a, b: pattern[index(a), index(b)],
                                 lambda a, b: variable[index(a), index(b)])
    assert encoded.counts(np.array([0]), np.array([1]))[0, 0, 2] == expected == (2 if matches_c else 0)


@needs_wordnet
def test_wordnet_types_relate_the_expected_words():
    words = ["dog", "canine", "car", "automobile", "heard", "hear", "good", "bad", "snore", "sleep", "finger", "hand",
             "cat", "cats", "cut", "him", "he", "running", "run"]
    index = {w: i for i, w in enumerate(words)}

    def related(type_name, role, a, b):
        scheme = TypingScheme([type_name] if role == "pattern" else [], [type_name] if role == "variable" else [])
        relation = scheme.relations(words)[0 if role == "pattern" else 1]
        return bool(relation[index[a], index[b]])

    assert related("hypernym", "variable", "dog", "canine")        # canine is a hypernym of dog
    assert not related("hypernym", "variable", "canine", "dog")
    assert related("hyponym", "variable", "canine", "dog")
    assert related("hypernym", "pattern", "dog", "dog") and not related("hypernym", "pattern", "dog", "car")
    assert related("synonym", "variable", "car", "automobile") and not related("synonym", "variable", "dog", "car")
    assert related("lemma", "pattern", "heard", "hear") and related("lemma", "pattern", "running", "run")
    assert related("antonym", "variable", "good", "bad") and related("antonym", "pattern", "bad", "good")
    assert related("entailment", "variable", "snore", "sleep")
    assert not related("entailment", "variable", "sleep", "snore")
    assert related("holonym", "variable", "finger", "hand") and not related("holonym", "variable", "hand", "finger")
    assert related("stem", "pattern", "cats", "cat") and not related("stem", "pattern", "cat", "cut")
    assert related("lvhsn", "pattern", "cat", "cut") and related("lvhsn", "variable", "cat", "cats")
    assert not related("lvhsn", "pattern", "cat", "cat")
    assert related("pronoun", "variable", "him", "he") and not related("pronoun", "variable", "he", "dog")
    assert related("id", "pattern", "dog", "dog") and not related("id", "pattern", "dog", "canine")


def test_edit_distance_one_equals_a_naive_levenshtein():
    def levenshtein(a, b):
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
        return row[-1]

    rng = np.random.default_rng(3)
    words = sorted({"".join(rng.choice(list("abc"), size=rng.integers(1, 5))) for _ in range(60)})
    relation = edit_distance_one(words).toarray()
    expected = np.array([[levenshtein(a, b) == 1 for b in words] for a in words])
    assert np.array_equal(relation, expected)


# -- sums, normalisation, cache -------------------------------------------------------------------------

def test_sum_is_normalised_before_and_after_and_the_cache_resumes(tmp_path, verse_pairs):
    words = Vocabulary(verse_pairs)
    terms = [SrkTerm([1, 2], ["id"], ["id"]), PrTerm()]
    for term in terms:
        term.prepare(words)
    n = len(verse_pairs)
    rows = cols = np.arange(n)
    cache = TileCache(str(tmp_path))
    blocks = [raw_block(t, rows, cols, True, term_key(t, "d", "d", True, None), cache, 5) for t in terms]
    diagonals = [t.diagonal() for t in terms]
    gram = combine(blocks, diagonals, rows, cols)
    # naive: three normalised kernels (srk1, srk2, pr) summed, then normalised
    parts = []
    for block, diag in zip(blocks, diagonals):
        for b, d in zip(block, diag):
            parts.append(b / np.sqrt(np.outer(d, d)))
    naive = sum(parts)
    naive = naive / np.sqrt(np.outer(np.diag(naive), np.diag(naive)))
    assert np.allclose(gram, naive)
    assert np.allclose(np.diag(gram), 1.0)
    # a second run reads every tile back; a changed spec does not
    tiles = sorted(p.name for p in tmp_path.rglob("*.npz"))
    assert len(tiles) == 2 * ((n + 4) // 5)
    terms[0].block = None  # would fail if called
    again = raw_block(terms[0], rows, cols, True, term_key(terms[0], "d", "d", True, None), cache, 5)
    assert np.array_equal(again, blocks[0])
    assert term_key(terms[0], "d", "d", True, None) != term_key(SrkTerm([1, 3], ["id"], ["id"]), "d", "d", True, None)
