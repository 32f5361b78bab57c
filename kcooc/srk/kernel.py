"""k-gram bijective string rewriting kernels, plain (kb-SRK, Bu et al. 2012) and type-enriched (TESRK).

Gleize & Grau (2015) define K_k((s1,t1),(s2,t2)) as the sum over all k-gram quadruples of
K^_k (Gleize & Grau 2015, Eq. 3), the number of rewriting rules matching both k-gram pairs, which Algorithm 1
(CountPerfectMatchings) counts: every zipped source position (a1,a2) either has a common pattern
type (a1 ~p a2, it may stay a pattern element) or becomes a wildcard linked one-to-one to a zipped
target position (b1,b2) whose substitutions have variable types (a1 ~v b1 and a2 ~v' b2); every
target position likewise. Algorithm 1 (line 16) asks for one v for both substitutions, but §2.2
defines a match per pair of strings ("there exists a variable type"), and Figure 1's rule (A)
matches (B) through id and (C) through same-pronoun and entailment: we follow the definition, so a
rule shared by (B) and (C) counts. We compute that count exactly, faster than Algorithms 1-2:

* A *linking* (S, T, tau) — which source offsets are wildcards, which target offsets, and the
  bijection — is a property of one k-gram pair: ``_linkings`` lists, once per sentence pair, every
  non-empty linking whose links all have a variable type. Two quadruple halves can only share a
  linking with the same code.
* For each linking shared by (i1, j1) in pair 1 and (i2, j2) in pair 2, the rule count is 1 iff
  every source offset outside S has a common pattern type and every target offset outside T too.
  The linking with no wildcards (the all-pattern rule) factorises: (# source k-gram pairs with all
  positions pattern-related) x (# target ones), counted from runs along the diagonals of the
  pattern-relation matrix.

This equals Gleize & Grau 2015, Eq. 3 with Algorithm 1 (tests/test_srk.py checks it against a literal
transcription of both, kcooc.testing, and against an explicit enumeration of rules where the two
definitions coincide). Counts are
exact int64. Rows of a Gram matrix run in parallel threads (numba prange); every entry is computed
independently, so results never depend on the thread count or on the tiling.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from ..encoders import lower_bound
from .config import MAX_K

KEY_SHIFT = 32  # entry key = k << KEY_SHIFT | code of the linking; codes < (k + 1)^k


@njit(cache=True)
def _lookup(indptr, indices, u, v):
    """Position of column v in row u of a CSR matrix with sorted indices, or -1."""
    at = lower_bound(indices, indptr[u], indptr[u + 1], v)
    return at if at < indptr[u + 1] and indices[at] == v else -1


@njit(cache=True)
def _related(x, y, indptr, indices):
    """related[a, b]: does the relation (CSR over word ids) hold between words x[a] and y[b]?"""
    related = np.zeros((x.size, y.size), np.bool_)
    for a in range(x.size):
        for b in range(y.size):
            related[a, b] = _lookup(indptr, indices, x[a], y[b]) >= 0
    return related


@njit(cache=True)
def _linkings(links, kmax, keys, starts, fill):
    """Enumerate every non-empty linking of every k-gram pair (k = 1..kmax); return how many.

    With ``fill`` the linkings are written to keys and starts (i, j). A depth-first search over
    source offsets: skip (-1) or link to a free target offset whose words have a variable type.
    """
    n, m = links.shape
    count = 0
    choice = np.empty(kmax, np.int64)
    used = np.zeros(kmax, np.bool_)
    for k in range(1, kmax + 1):
        for i in range(n - k + 1):
            for j in range(m - k + 1):
                any_link = False
                for a in range(k):
                    for b in range(k):
                        if links[i + a, j + b]:
                            any_link = True
                if not any_link:
                    continue
                used[:] = False
                depth = 0
                choice[0] = -2
                while depth >= 0:
                    c = choice[depth]
                    if c >= 0:
                        used[c] = False
                    c += 1
                    if c >= 0:
                        while c < k and (used[c] or not links[i + depth, j + c]):
                            c += 1
                    if c >= k:
                        depth -= 1
                        continue
                    choice[depth] = c
                    if c >= 0:
                        used[c] = True
                    if depth < k - 1:
                        depth += 1
                        choice[depth] = -2
                        continue
                    code, scale = 0, 1
                    for a in range(k):
                        if choice[a] >= 0:
                            code += (choice[a] + 1) * scale
                        scale *= k + 1
                    if code == 0:
                        continue
                    if fill:
                        keys[count] = (k << KEY_SHIFT) | code
                        starts[count, 0] = i
                        starts[count, 1] = j
                    count += 1
    return count


@njit(cache=True)
def _all_pattern_windows(related, kmax, out):
    """out[k-1] = number of (i1, i2) with related[i1 + m, i2 + m] for all m < k (runs on diagonals)."""
    n1, n2 = related.shape
    for d in range(-n1 + 1, n2):
        i1, i2 = max(0, -d), max(0, d)
        run = 0
        while True:
            inside = i1 < n1 and i2 < n2
            if inside and related[i1, i2]:
                run += 1
            else:
                for k in range(1, min(run, kmax) + 1):
                    out[k - 1] += run - k + 1
                run = 0
            if not inside:
                break
            i1 += 1
            i2 += 1


@njit(cache=True)
def _pair_kernel(s1, t1, s2, t2, e1, f1, e2, f2, keys, starts, p_indptr, p_indices, kmax, out):
    """out[k-1] = K_k((s1,t1),(s2,t2)) for k = 1..kmax; entries e1:f1 and e2:f2 are the linkings."""
    source = _related(s1, s2, p_indptr, p_indices)
    target = _related(t1, t2, p_indptr, p_indices)
    a_count = np.zeros(kmax, np.int64)
    b_count = np.zeros(kmax, np.int64)
    _all_pattern_windows(source, kmax, a_count)
    _all_pattern_windows(target, kmax, b_count)
    for k in range(kmax):
        out[k] = a_count[k] * b_count[k]
    tau = np.empty(kmax, np.int64)
    in_t = np.zeros(kmax, np.bool_)
    x, y = e1, e2
    while x < f1 and y < f2:
        if keys[x] < keys[y]:
            x += 1
            continue
        if keys[y] < keys[x]:
            y += 1
            continue
        x_end, y_end = x, y
        while x_end < f1 and keys[x_end] == keys[x]:
            x_end += 1
        while y_end < f2 and keys[y_end] == keys[y]:
            y_end += 1
        k = keys[x] >> KEY_SHIFT
        code = keys[x] & ((1 << KEY_SHIFT) - 1)
        in_t[:] = False
        for a in range(k):
            tau[a] = code % (k + 1) - 1
            code //= k + 1
            if tau[a] >= 0:
                in_t[tau[a]] = True
        total = 0
        for u in range(x, x_end):
            for w in range(y, y_end):
                ok = True
                i1, i2 = starts[u, 0], starts[w, 0]
                for a in range(k):
                    if tau[a] < 0 and not source[i1 + a, i2 + a]:
                        ok = False
                        break
                if not ok:
                    continue
                j1, j2 = starts[u, 1], starts[w, 1]
                for b in range(k):
                    if not in_t[b] and not target[j1 + b, j2 + b]:
                        ok = False
                        break
                if ok:
                    total += 1
        out[k - 1] += total
        x, y = x_end, y_end


@njit(parallel=True, cache=True)
def _diagonal(s_ids, s_ptr, t_ids, t_ptr, e_ptr, keys, starts, p_indptr, p_indices, kmax):
    result = np.zeros((s_ptr.size - 1, kmax), np.int64)
    for p in prange(s_ptr.size - 1):
        s, t = s_ids[s_ptr[p]:s_ptr[p + 1]], t_ids[t_ptr[p]:t_ptr[p + 1]]
        _pair_kernel(s, t, s, t, e_ptr[p], e_ptr[p + 1], e_ptr[p], e_ptr[p + 1], keys, starts,
                     p_indptr, p_indices, kmax, result[p])
    return result


@njit(cache=True)
def _gram_row(r, rows, cols, upper, s_ids, s_ptr, t_ids, t_ptr, e_ptr, keys, starts, p_indptr, p_indices, kmax, out):
    p = rows[r]
    s1, t1 = s_ids[s_ptr[p]:s_ptr[p + 1]], t_ids[t_ptr[p]:t_ptr[p + 1]]
    for c in range(cols.size):
        q = cols[c]
        if upper and q < p:
            continue
        _pair_kernel(s1, t1, s_ids[s_ptr[q]:s_ptr[q + 1]], t_ids[t_ptr[q]:t_ptr[q + 1]], e_ptr[p], e_ptr[p + 1],
                     e_ptr[q], e_ptr[q + 1], keys, starts, p_indptr, p_indices, kmax, out[r, c])


@njit(parallel=True, cache=True)
def _gram(rows, cols, upper, s_ids, s_ptr, t_ids, t_ptr, e_ptr, keys, starts, p_indptr, p_indices, kmax):
    result = np.zeros((rows.size, cols.size, kmax), np.int64)
    n = rows.size
    for half in prange((n + 1) // 2):  # rows r and n-1-r in one task: even work per task for an upper triangle
        _gram_row(half, rows, cols, upper, s_ids, s_ptr, t_ids, t_ptr, e_ptr, keys, starts, p_indptr, p_indices,
                  kmax, result)
        if n - 1 - half != half:
            _gram_row(n - 1 - half, rows, cols, upper, s_ids, s_ptr, t_ids, t_ptr, e_ptr, keys, starts, p_indptr,
                      p_indices, kmax, result)
    return result


def _flatten(sequences: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(sequences) + 1, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in sequences])
    flat = np.concatenate(sequences).astype(np.int64) if sequences else np.zeros(0, np.int64)
    return flat, ptr


class EncodedPairs:
    """Sentence pairs as word ids with their linkings, for one typing scheme and k up to ``kmax``.

    ``pattern`` and ``variable`` are boolean V x V relations over the word ids
    (``TypingScheme.relations``). Build one object over every pair a job compares (e.g. train and
    test together): its entries depend only on each pair and the word relations.
    """

    def __init__(self, sources: list[np.ndarray], targets: list[np.ndarray], pattern: sp.csr_matrix,
                 variable: sp.csr_matrix, kmax: int):
        if not 1 <= kmax <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}")
        self.kmax = kmax
        self.s_ids, self.s_ptr = _flatten(sources)
        self.t_ids, self.t_ptr = _flatten(targets)
        pattern, variable = sp.csr_matrix(pattern), sp.csr_matrix(variable)
        pattern.sort_indices()
        variable.sort_indices()
        self.p_indptr, self.p_indices = pattern.indptr.astype(np.int64), pattern.indices.astype(np.int64)
        v_indptr, v_indices = variable.indptr.astype(np.int64), variable.indices.astype(np.int64)
        per_pair = []
        for s, t in zip(sources, targets):
            links = _related(np.asarray(s, np.int64), np.asarray(t, np.int64), v_indptr, v_indices)
            n = _linkings(links, kmax, np.zeros(0, np.int64), np.zeros((0, 2), np.int64), False)
            keys, starts = np.zeros(n, np.int64), np.zeros((n, 2), np.int64)
            _linkings(links, kmax, keys, starts, True)
            order = np.argsort(keys, kind="stable")
            per_pair.append((keys[order], starts[order]))
        self.e_ptr = np.zeros(len(per_pair) + 1, np.int64)
        self.e_ptr[1:] = np.cumsum([len(e[0]) for e in per_pair])
        self.keys = np.concatenate([e[0] for e in per_pair]) if per_pair else np.zeros(0, np.int64)
        self.starts = np.concatenate([e[1] for e in per_pair]) if per_pair else np.zeros((0, 2), np.int64)

    def __len__(self) -> int:
        return self.s_ptr.size - 1

    def counts(self, rows: np.ndarray, cols: np.ndarray, upper: bool = False) -> np.ndarray:
        """(len(rows), len(cols), kmax) int64: K_k between pairs ``rows`` and ``cols`` (Gleize & Grau 2015, Eq. 3).

        With ``upper`` the entries with cols[c] < rows[r] are left 0 (a symmetric block's lower half).
        """
        return _gram(np.asarray(rows, np.int64), np.asarray(cols, np.int64), upper, self.s_ids, self.s_ptr,
                     self.t_ids, self.t_ptr, self.e_ptr, self.keys, self.starts,
                     self.p_indptr, self.p_indices, self.kmax)

    def diagonal(self) -> np.ndarray:
        """(n, kmax): K_k(x, x) for every pair, the normalisers."""
        return _diagonal(self.s_ids, self.s_ptr, self.t_ids, self.t_ptr, self.e_ptr, self.keys, self.starts,
                         self.p_indptr, self.p_indices, self.kmax)
