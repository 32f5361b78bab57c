"""Nonstationary convolution kernels on sequences of tuples and on trees (Garg et al., 2018, §4.1, §5.1).

Tuple kernel (§5.1): k^NS((e,n),(e',n')) = sigma_e k_e(e,e') sigma_e' k_n(n,n'), k_e exact match,
k_n exact match or the word-vector kernel exp(w'w - 1) ((w'w - gamma)/(1 - gamma))_+ (unit vectors).

Path kernel (Mooney & Bunescu 2005, §4.1): K(S,T) = sum over equal-length index subsequences i, j
(length <= max_length) of prod_k k(S[i_k], T[j_k]) lambda^(l(i) + l(j)), l = last index - first
index. Dynamic programme: P_p[a,b] sums the subsequences of length p ending at (a,b); with the
decayed prefix sum D of P_{p-1}, P_p[a,b] = k(S[a],T[b]) lambda^2 D[a-1,b-1], O(|S||T| max_length).

Tree kernel (Zelenko et al. 2003, §4.1): K(u,v) = k(u,v) (k(u,v) + sum over equal-length child
subsequences i, j of lambda^(l(i)+l(j)) sum_s K(c_i[s], c_j[s]) prod_s k(c_i[s], c_j[s])), l as
above, for every node pair bottom-up; the child sums are one DP carrying the product-only sums
(A) and the sums with one subtree kernel (B).

Labels are integer ids; a value depends only on the labels' equality (and the vectors), never on
which set the ids were fitted on. Normalised: K(x,y) / sqrt(K(x,x) K(y,y)), 0 if either is 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _tuple_kernel(e1, n1, e2, n2, sigma, vectors, gamma):
    if e1 != e2:
        return 0.0
    s = sigma[e1]
    if s == 0.0:
        return 0.0
    if n1 == n2:
        return s * s  # exact match, or w'w = 1 for unit vectors: the same value
    if vectors.shape[0] == 0 or vectors[n1, -1] == 0.0 or vectors[n2, -1] == 0.0:
        return 0.0  # exact-match kernel, or a label without a vector (last column flags presence)
    dot = 0.0
    for d in range(vectors.shape[1] - 1):
        dot += vectors[n1, d] * vectors[n2, d]
    if dot <= gamma:
        return 0.0
    return s * s * np.exp(dot - 1.0) * (dot - gamma) / (1.0 - gamma)


@njit(cache=True)
def path_kernel(e1, n1, e2, n2, sigma, vectors, gamma, lam, max_length):
    """Mooney & Bunescu's subsequence kernel with the nonstationary tuple kernel (unnormalised)."""
    p, q = e1.size, e2.size
    if p == 0 or q == 0:
        return 0.0
    match = np.empty((p, q))
    for a in range(p):
        for b in range(q):
            match[a, b] = _tuple_kernel(e1[a], n1[a], e2[b], n2[b], sigma, vectors, gamma)
    current = match.copy()
    total = current.sum()
    decayed = np.zeros((p, q))
    lam2 = lam * lam
    for _ in range(1, max_length):
        any_left = False
        for a in range(p):
            for b in range(q):
                _decay(decayed, a, b, current[a, b], lam)
        for a in range(p):
            for b in range(q):
                value = 0.0
                if a > 0 and b > 0 and match[a, b] != 0.0:
                    value = match[a, b] * lam2 * decayed[a - 1, b - 1]
                current[a, b] = value
                if value != 0.0:
                    any_left = True
                    total += value
        if not any_left:
            break
    return total


@njit(cache=True)
def _decay(prefix, a, b, value, lam):
    """prefix[a, b] = value + decayed sums of the cells above and to the left (lambda per step)."""
    if a > 0:
        value += lam * prefix[a - 1, b]
    if b > 0:
        value += lam * prefix[a, b - 1]
    if a > 0 and b > 0:
        value -= lam * lam * prefix[a - 1, b - 1]
    prefix[a, b] = value


@njit(cache=True)
def tree_kernel(e1, n1, c1_ptr, c1, e2, n2, c2_ptr, c2, sigma, vectors, gamma, lam):
    """Zelenko et al.'s kernel between two trees (node 0 = root, children after their parent)."""
    p, q = e1.size, e2.size
    if p == 0 or q == 0:
        return 0.0
    K = np.zeros((p, q))
    lam2 = lam * lam
    for u in range(p - 1, -1, -1):
        for v in range(q - 1, -1, -1):
            m = _tuple_kernel(e1[u], n1[u], e2[v], n2[v], sigma, vectors, gamma)
            if m == 0.0:
                continue
            kids1 = c1[c1_ptr[u]:c1_ptr[u + 1]]
            kids2 = c2[c2_ptr[v]:c2_ptr[v + 1]]
            child_sum = 0.0
            if kids1.size and kids2.size:
                da = np.zeros((kids1.size, kids2.size))  # decayed prefix sums of A and B
                db = np.zeros((kids1.size, kids2.size))
                for a in range(kids1.size):
                    for b in range(kids2.size):
                        mm = _tuple_kernel(e1[kids1[a]], n1[kids1[a]], e2[kids2[b]], n2[kids2[b]], sigma, vectors,
                                           gamma)
                        prior_a = 0.0
                        prior_b = 0.0
                        if a > 0 and b > 0:
                            prior_a = lam2 * da[a - 1, b - 1]
                            prior_b = lam2 * db[a - 1, b - 1]
                        value_a = mm * (1.0 + prior_a)
                        value_b = mm * (K[kids1[a], kids2[b]] * (1.0 + prior_a) + prior_b)
                        child_sum += value_b
                        _decay(da, a, b, value_a, lam)
                        _decay(db, a, b, value_b, lam)
            K[u, v] = m * (m + child_sum)
    return K[0, 0]


@njit(cache=True)
def _pair(kind, x, ex_all, nx_all, px, cpx, chx, y, ey_all, ny_all, py, cpy, chy, sigma, vectors, gamma, lam,
          max_length):
    ex, nx = ex_all[px[x]:px[x + 1]], nx_all[px[x]:px[x + 1]]
    ey, ny = ey_all[py[y]:py[y + 1]], ny_all[py[y]:py[y + 1]]
    if kind == 0:
        return path_kernel(ex, nx, ey, ny, sigma, vectors, gamma, lam, max_length)
    cx = cpx[px[x]:px[x + 1] + 1]  # per-node child ranges of tree x; children as local indices
    cy = cpy[py[y]:py[y + 1] + 1]
    return tree_kernel(ex, nx, cx - cx[0], chx[cx[0]:cx[-1]], ey, ny, cy - cy[0], chy[cy[0]:cy[-1]],
                       sigma, vectors, gamma, lam)


@njit(parallel=True, cache=True)
def raw_gram(kind, rows, ex, nx, px, cpx, chx, cols, ey, ny, py, cpy, chy, sigma, vectors, gamma, lam, max_length):
    """Unnormalised kernels between structures ``rows`` of X and ``cols`` of Y, rows in parallel."""
    out = np.empty((rows.size, cols.size))
    for r in prange(rows.size):
        for c in range(cols.size):
            out[r, c] = _pair(kind, rows[r], ex, nx, px, cpx, chx, cols[c], ey, ny, py, cpy, chy, sigma, vectors,
                              gamma, lam, max_length)
    return out


@njit(parallel=True, cache=True)
def raw_diagonal(kind, items, e, n, p, cp, ch, sigma, vectors, gamma, lam, max_length):
    out = np.empty(items.size)
    for r in prange(items.size):
        out[r] = _pair(kind, items[r], e, n, p, cp, ch, items[r], e, n, p, cp, ch, sigma, vectors, gamma, lam,
                       max_length)
    return out
