"""Linear-algebra helpers on dense arrays and scipy sparse rows, and the solvers the estimators share
(:func:`fit_logistic`, Newton's method for the filter's classifier)."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import scipy.sparse as sp

from .threads import single_threaded_blas


def dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def vstack(parts: list):
    """Stack row blocks, all dense or all scipy sparse (then CSR)."""
    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)


def squared_norms(X) -> np.ndarray:
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    X = np.asarray(X, dtype=np.float64)
    return np.einsum("ij,ij->i", X, X)


def normalize_rows(X):
    """Rows scaled to unit L2 norm, in the input's float precision; an all-zero row stays zero."""
    if sp.issparse(X):
        norms = np.sqrt(squared_norms(X))
    else:
        X = np.asarray(X)
        if not np.issubdtype(X.dtype, np.floating):
            X = X.astype(np.float64)
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    if sp.issparse(X):
        return sp.diags(scale.astype(X.dtype)) @ X
    return X * scale[:, None]


def normalize_kernel(K: np.ndarray, row_diag: np.ndarray, col_diag: np.ndarray) -> np.ndarray:
    """The normalised kernel K(x, y) / sqrt(K(x, x) K(y, y)); 0 where either diagonal value is 0.

    ``K`` is (rows, cols) with diagonals of shapes (rows,) and (cols,), or a stack of kernels
    (kernels, rows, cols) with diagonals (kernels, rows) and (kernels, cols).
    """
    product = row_diag[..., :, None] * col_diag[..., None, :]
    out = np.zeros(np.broadcast_shapes(np.shape(K), product.shape))
    np.divide(K, np.sqrt(product), out=out, where=product > 0)
    return out


def nan_columns(statistic, X: np.ndarray, *args) -> np.ndarray:
    """``statistic(X, *args, axis=0)`` for a NaN-ignoring numpy statistic (np.nanmedian, np.nanquantile): NaN for a
    column with no value, without the warning numpy prints there (a feature that no sampled pair has)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return statistic(X, *args, axis=0)


def with_ones_column(X) -> np.ndarray:
    """[X | 1] in float64, so one GEMM of two such blocks also yields their column sums and n."""
    out = np.empty((X.shape[0], X.shape[1] + 1))
    out[:, :-1] = X
    out[:, -1] = 1.0
    return out


def rowwise_bilinear(Phi, C: np.ndarray, Psi) -> np.ndarray:
    """phi_r^T C psi_r for every row r.

    Dense rows: one GEMM and a row-wise dot. Sparse rows: only the nnz(phi_r) x nnz(psi_r)
    entries of C each pair touches, instead of a sparse-dense product over all of C's columns.
    """
    if sp.issparse(Phi) and sp.issparse(Psi):
        Phi, Psi = sp.csr_matrix(Phi), sp.csr_matrix(Psi)
        return _sparse_bilinear(Phi.indptr, Phi.indices, Phi.data.astype(np.float64), C,
                                Psi.indptr, Psi.indices, Psi.data.astype(np.float64))
    Z = dense(Phi @ C)
    if sp.issparse(Psi):
        return np.asarray(Psi.multiply(Z).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", Z, dense(Psi))


def add_cross_product(S: np.ndarray, Phi, Psi) -> None:
    """S += Phi^T Psi in place (float64); for two sparse blocks, straight into the dense S."""
    if sp.issparse(Phi) and sp.issparse(Psi):
        Phi, Psi = sp.csr_matrix(Phi), sp.csr_matrix(Psi)
        tile = max(1, CROSS_PRODUCT_TILE_BYTES // max(1, S.shape[1] * S.itemsize))
        _sparse_cross_product(Phi.indptr, Phi.indices, Phi.data.astype(np.float64),
                              Psi.indptr, Psi.indices, Psi.data.astype(np.float64), S, tile)
    else:
        S += dense(Phi.T @ Psi)


CROSS_PRODUCT_TILE_BYTES = 1 << 21  # rows of S updated per sweep over the block: about a core's cache


@numba.njit(cache=True, nogil=True)
def _sparse_cross_product(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, S, tile):  # pragma: no cover - compiled
    """S[i] += x_val y of every row's entries, one band of ``tile`` rows of S per sweep over the
    block (the band stays in cache); each cell still gets its terms in row order (the same sums)."""
    for low in range(0, S.shape[0], tile):
        high = low + tile
        for r in range(len(x_ptr) - 1):
            for a in range(x_ptr[r], x_ptr[r + 1]):
                i = x_idx[a]
                if i < low or i >= high:
                    continue
                row = S[i]
                value = x_val[a]
                for b in range(y_ptr[r], y_ptr[r + 1]):
                    row[y_idx[b]] += value * y_val[b]


@numba.njit(cache=True, nogil=True)
def _sparse_bilinear(x_ptr, x_idx, x_val, C, y_ptr, y_idx, y_val):  # pragma: no cover - compiled
    """phi_r^T C psi_r of every row: total += x_val[a] (sum over b of C[x_idx[a], y_idx[b]] y_val[b]) in the order of
    a and b. Four of phi_r's entries go through psi_r's together, each with a sum of its own (the same additions in
    the same order, so the same bits): four chains of additions in flight instead of one, which waits for the last."""
    out = np.zeros(len(x_ptr) - 1)
    for r in range(len(out)):
        total, a, y_start, y_end = 0.0, x_ptr[r], y_ptr[r], y_ptr[r + 1]
        while a + 4 <= x_ptr[r + 1]:
            row0, row1, row2, row3 = C[x_idx[a]], C[x_idx[a + 1]], C[x_idx[a + 2]], C[x_idx[a + 3]]
            partial0 = partial1 = partial2 = partial3 = 0.0
            for b in range(y_start, y_end):
                column, value = y_idx[b], y_val[b]
                partial0 += row0[column] * value
                partial1 += row1[column] * value
                partial2 += row2[column] * value
                partial3 += row3[column] * value
            total += x_val[a] * partial0
            total += x_val[a + 1] * partial1
            total += x_val[a + 2] * partial2
            total += x_val[a + 3] * partial3
            a += 4
        for rest in range(a, x_ptr[r + 1]):
            row, partial = C[x_idx[rest]], 0.0
            for b in range(y_start, y_end):
                partial += row[y_idx[b]] * y_val[b]
            total += x_val[rest] * partial
        out[r] = total
    return out


def _cholesky(H: np.ndarray):
    """cho_factor of the Newton system H, with the smallest ridge (powers of ten of its mean diagonal,
    from 1e-12) that makes it positive definite when the float32 Hessian of a weakly regularised fit of
    (nearly) separable examples is not: the step then leans towards the gradient, the optimum is the same."""
    from scipy.linalg import LinAlgError, cho_factor

    scale = float(np.mean(np.diag(H)))
    for ridge in (0.0, *(scale * 10.0**k for k in range(-12, 1))):
        try:
            return cho_factor(H + ridge * np.eye(len(H)) if ridge else H)
        except LinAlgError:
            continue
    raise LinAlgError("the Newton system stays singular with a ridge of its mean diagonal")


def _bounded_newton_step(H: np.ndarray, gradient: np.ndarray, free: np.ndarray, lowest: np.ndarray) -> np.ndarray:
    """The Newton step on the ``free`` entries (the others 0) with every entry it would take below ``lowest`` fixed
    there and the remaining ones solved again, until none is (the variables that leave the feasible set are
    fixed at their bound, as in Lawson & Hanson's NNLS, 1974, Ch. 23; a fixed weight whose gradient turns
    is freed by the next Newton step's test): a step that lands on the constraints instead of one that
    the line search's projection bends. The plain Newton step when that is not a descent direction."""
    from scipy.linalg import cho_solve

    step, plain, fixed = np.zeros(len(gradient)), None, np.zeros(0, dtype=np.int64)
    while True:
        rhs = gradient[free] + H[np.ix_(free, fixed)] @ step[fixed]
        step[free] = -cho_solve(_cholesky(H[np.ix_(free, free)]), rhs)
        plain = step.copy() if plain is None else plain
        over = free[step[free] < lowest[free]]
        if over.size == 0:
            return step if gradient @ step < 0 else plain
        step[over] = lowest[over]
        fixed, free = np.union1d(fixed, over), np.setdiff1d(free, over)


def fit_logistic(X: np.ndarray, y: np.ndarray, regularization: float, tol: float = 1e-6, max_iter: int = 100,
                 start: tuple[np.ndarray, float] | None = None, nonnegative: np.ndarray | None = None,
                 penalties: np.ndarray | None = None, hessian_rows: int = 4096) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression (w, b) by Newton's method with a backtracking line search
    (Nocedal & Wright 2006, Alg. 3.1): the minimum over (w, b) of the mean over rows of
    log(1 + exp(z)) - y z, z = X w + b, plus sum_j r_j w_j^2 / (2 C n) (C = ``regularization``, r_j
    = ``penalties`` or 1: the optimum of scikit-learn's ``LogisticRegression(C)``, and its stopping
    rule: largest gradient entry and half the Newton decrement at most ``tol``), from ``start`` or zero.

    With ``nonnegative`` (a mask of the columns whose weight must be >= 0): the projected Newton
    method of Bertsekas (1982): the weights at their bound whose gradient pushes them out are held
    there, the Newton step is taken on the others (with the weights it would take below 0 fixed there
    and the rest solved again, ``_bounded_newton_step``: hundreds of the ramps' weights sit at their
    bound, and a step the projection bends takes three times as many steps and line-search trials), and
    the line search follows the projection of the step onto the constraints; it stops when the projected
    gradient is at most ``tol``.

    The gradient is float64 over every row; the Hessian X^T diag(p(1 - p)) X / n is one float32 BLAS
    ``syrk`` (a fourth of a float64 ``X^T (W X)``'s time) over at most ``hessian_rows`` rows, every k-th
    (a subsampled Newton method, Byrd et al. 2011; its cost is rows x columns^2, the gradient's rows x
    columns): an approximate Hessian changes the steps, not the optimum the exact gradient defines. One
    BLAS thread: the same bytes on machines with any number of cores.
    """
    from scipy.linalg import blas
    from scipy.special import expit

    n, width = X.shape
    y = np.asarray(y, dtype=np.float64)
    penalty = (np.ones(width) if penalties is None else np.asarray(penalties, dtype=np.float64)) / (regularization * n)
    bounded = np.zeros(width, dtype=bool) if nonnegative is None else np.asarray(nonnegative, dtype=bool)
    w, b = (np.zeros(width), 0.0) if start is None else (np.array(start[0], dtype=np.float64), float(start[1]))
    w[bounded] = np.maximum(w[bounded], 0.0)
    stride = -(-n // hessian_rows)  # every stride-th row enters the Hessian
    X32 = X[::stride].astype(np.float32)
    weighted = np.empty_like(X32)  # rows of X32 times sqrt(h), refilled at every step (no fresh pages)

    def objective(z, w):
        return float(np.mean(np.logaddexp(0.0, z) - y * z) + (penalty * w) @ w / 2)

    with single_threaded_blas():
        z = X @ w + b
        loss, decrement = objective(z, w), np.inf
        for _ in range(max_iter):
            p = expit(z)
            gradient = np.append(X.T @ (p - y) / n + penalty * w, np.mean(p - y))
            projected = gradient.copy()
            projected[:width][bounded] = (w - np.maximum(w - gradient[:width], 0.0))[bounded]
            if np.max(np.abs(projected)) <= tol and decrement <= tol:
                break
            margin = min(1e-8, float(np.abs(projected).sum()))
            held = np.append(bounded & (w <= margin) & (gradient[:width] > 0), False)  # at the bound, pushed out
            free = np.flatnonzero(~held)
            h = p[::stride] * (1 - p[::stride]) / X32.shape[0]
            H = np.empty((width + 1, width + 1))
            np.multiply(X32, np.sqrt(h, dtype=np.float32)[:, None], out=weighted)
            upper = blas.ssyrk(1.0, weighted.T, trans=0)
            H[:width, :width] = np.triu(upper) + np.triu(upper, 1).T
            H[np.arange(width), np.arange(width)] += penalty
            H[:width, width] = H[width, :width] = X[::stride].T @ h
            H[width, width] = h.sum()
            lowest = np.full(width + 1, -np.inf)  # a step at least this keeps the bounded weights >= 0
            lowest[:width][bounded] = -w[bounded]
            step = _bounded_newton_step(H, gradient, free, lowest)
            decrement = -(gradient @ step) / 2
            t = 1.0
            for _ in range(31):  # Armijo along the projected path
                trial_w = w + t * step[:width]
                trial_w[bounded] = np.maximum(trial_w[bounded], 0.0)
                trial_b = b + t * step[width]
                moved = np.append(trial_w - w, trial_b - b)
                trial_z = X @ trial_w + trial_b
                trial = objective(trial_z, trial_w)
                if (trial - loss <= 2.0**-11 * (gradient @ moved)
                        or abs(trial - loss) <= 16 * np.finfo(float).eps * abs(loss)):
                    break
                t /= 2
            else:
                break  # no decrease left at float64 precision
            w, b, z, loss = trial_w, trial_b, trial_z, trial
    return w, b
