"""The CA biplot (Niitsuma, §2, Figure 1): rows and columns of a contingency table in the first two
principal dimensions, in principal coordinates F = D(r/n)^-1/2 U S and G = D(c/n)^-1/2 V S.

Both axes have the same scale (distances on the map are distances between profiles), and labels are
moved apart until none overlaps another label or a marker (``separate``), with a thin leader to any
label that moved away from its point."""

from __future__ import annotations

import os
import warnings

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..extras import import_optional
from .svd import CAOperator, randomized_svd

FISHER = {  # Fisher's eye and hair colour data, Caithness (paper Table 1)
    "rows": ["blue", "light", "medium", "dark"],
    "columns": ["fair", "red", "medium", "dark", "black"],
    "counts": [[326, 38, 241, 110, 3], [688, 116, 584, 188, 4], [343, 84, 909, 412, 26], [98, 48, 403, 681, 85]],
}

# File formats by extension, and the metadata that would make two runs' files differ (dates, versions).
FORMATS = {".png": ("png", {"Software": None}), ".pdf": ("pdf", {"CreationDate": None, "Producer": None}),
           ".svg": ("svg", {"Date": None, "Creator": None})}


def check_table(rows: list[str], columns: list[str], N: np.ndarray) -> np.ndarray:
    """``N`` divided by its largest count, or an InputError: CA places a row or column by its profile, so
    each needs a count, and the profiles must differ (total inertia > 0). CA is invariant to the table's
    scale; dividing first keeps sums of counts near the float limit finite."""
    N = np.asarray(N, dtype=np.float64)
    for labels, totals, what in ((rows, N.sum(axis=1), "row"), (columns, N.sum(axis=0), "column")):
        empty = np.flatnonzero(totals == 0)
        if empty.size:
            raise InputError(f"{what} {labels[empty[0]]!r} has no counts; CA places a {what} by its profile")
    N = N / N.max()
    if CAOperator(sp.csr_matrix(N)).total_inertia() <= 1e-12:
        raise InputError("every row has the same profile (total inertia 0): the map would be a single point")
    return N


def principal_coordinates(N: np.ndarray, dims: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row coordinates, column coordinates, principal inertias) of the first ``dims`` dimensions."""
    op = CAOperator(sp.csr_matrix(np.asarray(N, dtype=np.float64)))
    U, s, Vt = randomized_svd(op, dims, oversample=min(op.shape), power_iterations=2)[:3]
    return op.row_scale[:, None] * U * s, op.col_scale[:, None] * Vt.T * s, s**2


def plot_format(path: str) -> tuple[str, dict]:
    """(matplotlib format, metadata) for an output path by its extension: .png, .pdf or .svg."""
    extension = os.path.splitext(path)[1].lower()
    if extension not in FORMATS:
        raise InputError(f"{path}: the plot format comes from the extension; use .png, .pdf or .svg")
    return FORMATS[extension]


def separate(boxes: np.ndarray, fixed: np.ndarray | None = None) -> np.ndarray:
    """Shifts (n x 2) that leave no two boxes overlapping; ``boxes`` rows are (x0, y0, x1, y1) and
    ``fixed`` marks boxes that must not move (markers on their data points).

    Greedy and deterministic: the fixed boxes are placed first, then each other box in order takes
    the nearest free position on square rings of growing radius around its own (steps of half the
    median box height), so a box moves only as far as the boxes placed before it force it to.
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    fixed = np.zeros(len(boxes), dtype=bool) if fixed is None else np.asarray(fixed, dtype=bool)
    step = max(float(np.median(boxes[:, 3] - boxes[:, 1])) / 2, 1e-9)
    shift = np.zeros((len(boxes), 2))
    placed = boxes[fixed]
    for k in np.flatnonzero(~fixed):
        radius = 0
        while True:
            offsets = ring(radius) * step
            candidates = boxes[k] + np.tile(offsets, 2)
            free = ~((candidates[:, None, 0] < placed[None, :, 2]) & (placed[None, :, 0] < candidates[:, None, 2])
                     & (candidates[:, None, 1] < placed[None, :, 3]) & (placed[None, :, 1] < candidates[:, None, 3])
                     ).any(axis=1)
            if free.any():
                shift[k] = offsets[np.argmax(free)]
                break
            radius += 1
        placed = np.vstack([placed, boxes[k] + np.tile(shift[k], 2)])
    return shift


def ring(radius: int) -> np.ndarray:
    """Integer points at Chebyshev distance ``radius`` from the origin, nearest (Euclidean) first."""
    steps = np.arange(-radius, radius + 1)
    x, y = (grid.ravel() for grid in np.meshgrid(steps, steps))
    points = np.column_stack([x, y])[np.maximum(np.abs(x), np.abs(y)) == radius]
    return points[np.lexsort((points[:, 0], points[:, 1], np.hypot(points[:, 0], points[:, 1])))].astype(np.float64)


def biplot(rows: list[str], columns: list[str], N: np.ndarray, path: str, out, title: str = "") -> np.ndarray:
    """Draw the symmetric CA map to the binary file ``out`` in the format of ``path``'s extension;
    returns the principal inertias shown."""
    file_format, metadata = plot_format(path)
    with warnings.catch_warnings():
        # a 3D axes that fails to import (a SIGINT landing in it, whose exception matplotlib catches and which
        # raise_if_signalled then raises again) is no concern of a 2D map: no warning line on stderr
        warnings.filterwarnings("ignore", message="Unable to import Axes3D", category=UserWarning)
        matplotlib = import_optional("matplotlib", "by kcooc ca plot")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    F, G, inertia = principal_coordinates(N)
    total = CAOperator(sp.csr_matrix(np.asarray(N, dtype=np.float64))).total_inertia()
    # labels and titles are text: no TeX (a user's matplotlibrc may turn it on), no $...$ math (parse_math=False)
    with matplotlib.rc_context({"svg.hashsalt": "kcooc", "pdf.compression": 6, "text.usetex": False}):
        figure, axes = plt.subplots(figsize=(6, 5), dpi=120)
        axes.axhline(0, color="0.8", lw=0.8)
        axes.axvline(0, color="0.8", lw=0.8)
        axes.scatter(F[:, 0], F[:, 1], marker="o", color="tab:blue", label="rows", zorder=3)
        axes.scatter(G[:, 0], G[:, 1], marker="^", color="tab:red", label="columns", zorder=3)
        axes.set_aspect("equal", adjustable="datalim")  # one unit is the same length on both axes
        axes.margins(0.15)
        axes.set_xlabel(f"dimension 1 ({inertia[0]:.4f}, {inertia[0] / total:.1%} of inertia)")
        axes.set_ylabel(f"dimension 2 ({inertia[1]:.4f}, {inertia[1] / total:.1%})")
        axes.set_title(title or "Correspondence analysis", parse_math=False)
        axes.legend(loc="best")
        figure.tight_layout()
        place_labels(figure, axes, np.vstack([F[:, :2], G[:, :2]]), list(rows) + list(columns),
                     ["tab:blue"] * len(rows) + ["tab:red"] * len(columns))
        figure.savefig(out, format=file_format, metadata=metadata)
        plt.close(figure)
    return inertia


def place_labels(figure, axes, points: np.ndarray, labels: list[str], colours: list[str]) -> None:
    """Write each label just above-right of its point, moved (in screen units) until it overlaps
    no other label and no marker; a label that moved away gets a thin leader line to its point."""
    offset, marker = 4.0, 3.5 * figure.dpi / 72  # points; half a marker (scatter default: 6 points) in pixels
    figure.canvas.draw()  # fixes the limits that the equal aspect sets, and so the data -> screen transform
    renderer = figure.canvas.get_renderer()
    drafts = [axes.annotate(label, (x, y), xytext=(offset, offset), textcoords="offset points", fontsize=9,
                            parse_math=False) for (x, y), label in zip(points, labels)]
    label_boxes = np.array([text.get_window_extent(renderer).extents for text in drafts]) + [-1, -1, 1, 1]
    for text in drafts:
        text.remove()
    centres = axes.transData.transform(points)
    boxes = np.vstack([label_boxes, np.hstack([centres - marker, centres + marker])])
    shift = separate(boxes, fixed=np.arange(len(boxes)) >= len(labels))[: len(labels)] * 72 / figure.dpi
    for (x, y), label, colour, (dx, dy) in zip(points, labels, colours, shift):
        leader = ({"arrowstyle": "-", "color": "0.6", "lw": 0.6, "shrinkA": 0, "shrinkB": 4}
                  if np.hypot(dx, dy) > 6 else None)
        axes.annotate(label, (x, y), xytext=(offset + dx, offset + dy), textcoords="offset points", fontsize=9,
                      color=colour, arrowprops=leader, parse_math=False)
