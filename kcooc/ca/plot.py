"""The CA biplot (Niitsuma, §2, Figure 1): rows and columns of a contingency table in the first two
principal dimensions, in principal coordinates F = D(r/n)^-1/2 U S and G = D(c/n)^-1/2 V S."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .svd import CAOperator, randomized_svd

FISHER = {  # Fisher's eye and hair colour data, Caithness (paper Table 1)
    "rows": ["blue", "light", "medium", "dark"],
    "columns": ["fair", "red", "medium", "dark", "black"],
    "counts": [[326, 38, 241, 110, 3], [688, 116, 584, 188, 4], [343, 84, 909, 412, 26], [98, 48, 403, 681, 85]],
}


def principal_coordinates(N: np.ndarray, dims: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row coordinates, column coordinates, principal inertias) of the first ``dims`` dimensions."""
    op = CAOperator(sp.csr_matrix(np.asarray(N, dtype=np.float64)))
    U, s, Vt = randomized_svd(op, dims, oversample=min(op.shape), power_iterations=2)[:3]
    return op.row_scale[:, None] * U * s, op.col_scale[:, None] * Vt.T * s, s**2


def biplot(rows: list[str], columns: list[str], N: np.ndarray, out, title: str = "") -> np.ndarray:
    """Draw the symmetric CA map as PNG to the binary file ``out``; returns the principal inertias shown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    F, G, inertia = principal_coordinates(N)
    total = CAOperator(sp.csr_matrix(np.asarray(N, dtype=np.float64))).total_inertia()
    figure, axes = plt.subplots(figsize=(6, 5), dpi=120)
    axes.axhline(0, color="0.8", lw=0.8)
    axes.axvline(0, color="0.8", lw=0.8)
    axes.scatter(F[:, 0], F[:, 1], marker="o", color="tab:blue", label="rows")
    axes.scatter(G[:, 0], G[:, 1], marker="^", color="tab:red", label="columns")
    for (x, y), label in zip(F[:, :2], rows):
        axes.annotate(label, (x, y), textcoords="offset points", xytext=(4, 4), color="tab:blue")
    for (x, y), label in zip(G[:, :2], columns):
        axes.annotate(label, (x, y), textcoords="offset points", xytext=(4, -10), color="tab:red")
    axes.set_xlabel(f"dimension 1 ({inertia[0]:.4f}, {inertia[0] / total:.1%} of inertia)")
    axes.set_ylabel(f"dimension 2 ({inertia[1]:.4f}, {inertia[1] / total:.1%})")
    axes.set_title(title or "Correspondence analysis")
    axes.legend(loc="best")
    figure.tight_layout()
    figure.savefig(out, format="png", metadata={"Software": None})
    plt.close(figure)
    return inertia
