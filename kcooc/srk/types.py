"""Word types of TESRK (Gleize & Grau 2015, Table 1 and §2.2) as relations over a vocabulary.

A type relates two words: as a *pattern type* it relates the two words a rule's pattern element
[a|b] stands for (Gleize & Grau 2015, Eq. 2); as a *variable type* it relates the source and the target word that
fill a pair of linked wildcards (a ~ b, a in the source, b in the target). Each relation is built
once for a whole vocabulary as a sparse boolean matrix, never per kernel call, and depends only on
the two words — never on which other words are in the vocabulary.

Types: ``id`` (same token), ``stem`` (same Porter stem), ``lemma`` (a common WordNet morphy lemma),
``synonym`` (a common synset), ``antonym``, ``hypernym`` / ``hyponym`` / ``entailment`` /
``holonym`` (as a variable type: b's synset is a [type] of a's; as a pattern type: a and b have a
common [type], the reading of the paper's Figure 1 example), ``pronoun`` (personal pronouns of the
same person and number, Figure 1) and ``lvhsn`` (Levenshtein distance 1). Table 1's ``ne`` needs a
named-entity tagger and is not provided; its ``id`` compares tags too, ours compares tokens.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import scipy.sparse as sp
import snowballstemmer

from ..errors import InputError
from . import wordnet
from .config import TYPES

PRONOUNS = {
    "1sg": "i me my mine myself", "1pl": "we us our ours ourselves", "2": "you your yours yourself yourselves",
    "3sg": "he him his himself she her hers herself it its itself", "3pl": "they them their theirs themselves",
}
PRONOUN_CLASS = {word: cls for cls, words in PRONOUNS.items() for word in words.split()}


def share_keys(source_keys: list[Iterable], target_keys: list[Iterable]) -> sp.csr_matrix:
    """R[a, b] = 1 iff the key sets of word a (source side) and word b (target side) meet."""
    index: dict = {}

    def incidence(keys: list[Iterable]) -> sp.csr_matrix:
        rows, cols = [], []
        for row, word_keys in enumerate(keys):
            for key in set(word_keys):
                rows.append(row)
                cols.append(index.setdefault(key, len(index)))
        return sp.csr_matrix((np.ones(len(rows), np.int32), (rows, cols)), shape=(len(keys), max(len(index), 1)))

    source, target = incidence(source_keys), incidence(target_keys)
    target.resize(target.shape[0], max(len(index), 1))
    source.resize(source.shape[0], max(len(index), 1))
    product = (source @ target.T).tocsr()
    product.data[:] = 1
    product.eliminate_zeros()
    product.sort_indices()
    return product.astype(bool)


def edit_distance_one(words: list[str]) -> sp.csr_matrix:
    """R[a, b] = 1 iff Levenshtein(a, b) == 1: candidates meet in their one-deletion neighbourhoods."""
    def deletions(word: str) -> set[str]:
        return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}

    candidates = share_keys([deletions(w) for w in words], [deletions(w) for w in words]).tocoo()
    keep = [_levenshtein_is_one(words[a], words[b]) for a, b in zip(candidates.row, candidates.col)]
    mask = np.asarray(keep, dtype=bool)
    return sp.csr_matrix((np.ones(int(mask.sum()), bool), (candidates.row[mask], candidates.col[mask])),
                         shape=(len(words), len(words)))


def _levenshtein_is_one(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))
    return short[i:] == long_[i + 1:]


class Lexicon:
    """Key sets of words under each type; WordNet is loaded only when a WordNet type is used."""

    def __init__(self, wordnet_dir: str | None = None):
        self.wordnet_dir = wordnet_dir
        self._stemmer = snowballstemmer.stemmer("porter")

    @property
    def wn(self):
        return wordnet.load(self.wordnet_dir)

    def synsets(self, word: str) -> list:
        return self.wn.synsets(word)

    def lemmas(self, word: str) -> set[str]:
        found = {lemma for pos in "nvar" for lemma in self.wn._morphy(word, pos)}
        return found or {word}

    def related(self, word: str, relation: str) -> set:
        synsets = self.synsets(word)
        if relation == "hypernym":
            return {h for s in synsets for h in s.hypernyms() + s.instance_hypernyms()}
        if relation == "hyponym":
            return {h for s in synsets for h in s.hyponyms() + s.instance_hyponyms()}
        if relation == "entailment":
            return {h for s in synsets for h in s.entailments()}
        if relation == "holonym":
            return {h for s in synsets for h in s.member_holonyms() + s.part_holonyms() + s.substance_holonyms()}
        if relation == "antonym":
            forms = self.lemmas(word) | {word}
            return {a.synset() for s in synsets for lemma in s.lemmas() if lemma.name().lower() in forms
                    for a in lemma.antonyms()}
        raise ValueError(relation)

    def keys(self, word: str, type_name: str, role: str, side: str) -> set:
        """The keys of ``word`` under a type; ``side`` is source or target (they differ for directed types)."""
        if type_name == "id":
            return {word}
        if type_name == "stem":
            return {self._stemmer.stemWord(word)}
        if type_name == "pronoun":
            return {PRONOUN_CLASS[word]} if word in PRONOUN_CLASS else set()
        if type_name == "lemma":
            return self.lemmas(word)
        if type_name == "synonym":
            return set(self.synsets(word))
        if type_name == "antonym" or (role == "variable" and side == "source"):
            return self.related(word, type_name)
        if role == "variable":  # target side of a directed variable type: the word's own synsets
            return set(self.synsets(word))
        return self.related(word, type_name)  # pattern: a common hypernym / hyponym / ...


def type_relation(lexicon: Lexicon, words: list[str], type_name: str, role: str) -> sp.csr_matrix:
    """The V x V boolean relation of one type in one role over ``words``."""
    if type_name == "lvhsn":
        return edit_distance_one(words)
    source = [lexicon.keys(w, type_name, role, "source") for w in words]
    if type_name == "antonym":  # antonym keys are the antonyms' synsets; compare them with b's synsets
        target = [set(lexicon.synsets(w)) for w in words]
    elif role == "variable" and type_name in ("hypernym", "hyponym", "entailment", "holonym"):
        target = [lexicon.keys(w, type_name, role, "target") for w in words]
    else:
        target = source
    return share_keys(source, target)


class TypingScheme:
    """Pattern types Sigma_p and variable types Sigma_v of a TESRK (paper §2.2)."""

    def __init__(self, pattern_types: list[str], variable_types: list[str], wordnet_dir: str | None = None,
                 relation: Callable | None = None):
        for name in list(pattern_types) + list(variable_types):
            if name not in TYPES:
                raise InputError(f"unknown word type {name!r}; choose from {', '.join(TYPES)}")
        if not pattern_types and not variable_types:
            raise InputError("a typing scheme needs at least one pattern or variable type")
        self.pattern_types, self.variable_types = list(pattern_types), list(variable_types)
        self.lexicon = Lexicon(wordnet_dir)
        self._relation = relation or (lambda words, name, role: type_relation(self.lexicon, words, name, role))

    def relations(self, words: list[str]) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Boolean V x V relations over ``words``: (some pattern type relates a and b, some variable type does)."""
        return self._union(words, self.pattern_types, "pattern"), self._union(words, self.variable_types, "variable")

    def _union(self, words: list[str], names: list[str], role: str) -> sp.csr_matrix:
        union = sp.csr_matrix((len(words), len(words)), dtype=bool)
        for name in names:
            union = union + self._relation(words, name, role)
        union = sp.csr_matrix(union, dtype=bool)
        union.sort_indices()
        return union
