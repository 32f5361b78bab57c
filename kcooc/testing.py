"""Naive references: the papers' algorithms transcribed as written, slow and obviously right.

The tests check the fast kernels against them, and the benchmarks time the fast kernels against them
in the same process. Pure Python; nothing here is used by the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Relation = Callable[[str, str], bool]


def count_perfect_matchings(rem_s: list, rem_t: list, pattern: Relation, variable: Relation) -> int:
    """Gleize & Grau 2015, Algorithm 1 (CountPerfectMatchings), transcribed; line 16 as §2.2 defines a
    match (a variable type per pair of strings)."""
    if not rem_s and not rem_t:
        return 1
    if not rem_s:
        b1, b2 = rem_t[0]
        return count_perfect_matchings(rem_s, rem_t[1:], pattern, variable) if pattern(b1, b2) else 0
    (a1, a2), rest = rem_s[0], rem_s[1:]
    result = count_perfect_matchings(rest, rem_t, pattern, variable) if pattern(a1, a2) else 0
    for index, (b1, b2) in enumerate(rem_t):
        if variable(a1, b1) and variable(a2, b2):
            result += count_perfect_matchings(rest, rem_t[:index] + rem_t[index + 1:], pattern, variable)
    return result


def kgrams(sequence: Sequence, k: int) -> list[tuple]:
    """Every contiguous k-gram of ``sequence``, in order."""
    return [tuple(sequence[i:i + k]) for i in range(len(sequence) - k + 1)]


def srk_by_algorithm1(pair1: tuple[Sequence, Sequence], pair2: tuple[Sequence, Sequence], k: int,
                      pattern: Relation, variable: Relation) -> int:
    """kb-SRK of two string pairs (Gleize & Grau 2015, Eq. 3 with Eq. 5): every k-gram quadruple,
    CountPerfectMatchings on the zipped k-grams."""
    (s1, t1), (s2, t2) = pair1, pair2
    return sum(count_perfect_matchings(list(zip(a1, a2)), list(zip(b1, b2)), pattern, variable)
               for a1 in kgrams(s1, k) for b1 in kgrams(t1, k) for a2 in kgrams(s2, k) for b2 in kgrams(t2, k))
