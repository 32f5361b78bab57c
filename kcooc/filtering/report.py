"""``filter-parallel --report``: one self-contained HTML page of what a run did, for a reader the next morning.

Plain functions in two groups. Choosing what to show (:func:`plan`, :func:`histogram`, :func:`sample_rows`):
seeded samples of rows by the hash of their row number (``sampling.sample_priorities``), so the same
rows on every engine and ``--jobs``, chosen with bounded memory; histograms with fixed bins. Rendering
(:func:`render`): HTML with inline CSS and hand-written inline SVG charts (no script, no font, no image
file, no address of any kind: the page opens from a mail attachment and makes no request). Every text
from the corpus or the config is HTML-escaped, and a lone surrogate is shown as its ``\\udXXX`` escape.
The pipeline (pipeline.py) computes what the page shows and calls :func:`render`.
"""

from __future__ import annotations

import dataclasses
import html

import numpy as np

from .rules import CODE, PASS, REASONS
from .sampling import sample_priorities

SAMPLES_PER_REASON = 6  # lines shown for each reason a line was dropped
FEATURE_SAMPLE = 1000  # kept pairs, and pairs the selection dropped, whose features the page shows
SCORE_BINS = 40
FEATURE_BINS = 16
SALT = 0x5EED_0F_4E9027  # the report's samples are not the training sample
SELECTION_DROPS = (CODE["below_threshold"], CODE["not_selected"])
KEPT, DROPPED = "#2b7bba", "#d95f02"


@dataclasses.dataclass(frozen=True)
class Plan:
    """The rows the page shows: per reason code, a sample of its lines; for the learned score, a sample
    of kept pairs and one of pairs the selection dropped (their features are computed for the page)."""

    reasons: dict[int, np.ndarray]
    kept: np.ndarray
    dropped: np.ndarray

    def rows(self) -> np.ndarray:
        """Every row whose text the page needs, sorted."""
        return np.unique(np.concatenate([*self.reasons.values(), self.kept, self.dropped, np.zeros(0, np.int64)]))


def sample_rows(reasons: np.ndarray, seed: int, groups: dict[str, tuple[tuple[int, ...], int]],
                chunk: int = 1 << 20) -> dict[str, np.ndarray]:
    """For each group ``name: (codes, k)``, the k rows whose reason is one of ``codes`` with the lowest
    seeded priority, sorted: a pure function of ``reasons`` and ``seed`` (the same on every engine),
    computed ``chunk`` rows at a time (memory: the samples and one chunk)."""
    held = {name: (np.zeros(0, np.uint64), np.zeros(0, np.int64)) for name in groups}
    for start in range(0, len(reasons), chunk):
        codes = np.asarray(reasons[start : start + chunk])
        rows = np.arange(start, start + codes.size, dtype=np.int64)
        priorities = sample_priorities(rows, seed ^ SALT)
        for name, (wanted, k) in groups.items():
            hit = np.isin(codes, wanted)
            p, r = np.concatenate([held[name][0], priorities[hit]]), np.concatenate([held[name][1], rows[hit]])
            keep = np.lexsort((r, p))[:k]
            held[name] = p[keep], r[keep]
    return {name: np.sort(rows) for name, (_, rows) in held.items()}


def plan(reasons: np.ndarray, seed: int, learned: bool) -> Plan:
    """What the page samples (after the selection marked ``reasons``)."""
    groups = {str(code): ((code,), SAMPLES_PER_REASON) for code in range(1, len(REASONS))}
    if learned:
        groups.update(kept=((PASS,), FEATURE_SAMPLE), dropped=(SELECTION_DROPS, FEATURE_SAMPLE))
    rows = sample_rows(reasons, seed, groups)
    none = np.zeros(0, np.int64)
    return Plan({code: rows[str(code)] for code in range(1, len(REASONS)) if rows[str(code)].size},
                rows.get("kept", none), rows.get("dropped", none))


def histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of ``values`` in the fixed bins ``edges`` (the last bin closed; NaN not counted)."""
    values = np.asarray(values, dtype=np.float64)
    return np.histogram(values[~np.isnan(values)], bins=edges)[0]


def score_edges(scorer: str, low: float | None, high: float | None) -> np.ndarray:
    """The score histogram's bins: [0, 1] for the learned probability, the scores' range for PHSIC."""
    if scorer == "learned" or low is None:
        return np.linspace(0.0, 1.0, SCORE_BINS + 1)
    if not high > low:
        low, high = low - 0.5, low + 0.5
    return np.linspace(low, high, SCORE_BINS + 1)


def feature_edges(values: np.ndarray) -> np.ndarray:
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if not high > low:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, FEATURE_BINS + 1)


# -- rendering ------------------------------------------------------------------------------------------
def text(value) -> str:
    """``value`` as escaped HTML text; a lone surrogate (which UTF-8 cannot hold) as its escape."""
    string = str(value).encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(string, quote=True)


def number(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    value = float(value)
    return "nan" if np.isnan(value) else f"{value:.{digits}g}"


def bar_chart(labels: list[str], values: list[int], colors: list[str], width: int = 760) -> str:
    """Horizontal bars, one a label, with their counts: inline SVG."""
    row, label_width = 22, 170
    top = max(values) if values and max(values) > 0 else 1
    height = row * len(labels) + 8
    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">']
    for i, (label, value, color) in enumerate(zip(labels, values, colors)):
        y = 4 + i * row
        length = (width - label_width - 90) * value / top
        parts.append(f'<text x="{label_width - 6}" y="{y + 15}" text-anchor="end">{text(label)}</text>'
                     f'<rect x="{label_width}" y="{y + 2}" width="{length:.1f}" height="{row - 6}" fill="{color}"/>'
                     f'<text x="{label_width + length + 6:.1f}" y="{y + 15}">{value:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def histogram_svg(edges: np.ndarray, series: list[tuple[str, np.ndarray, str]], cut: float | None = None,
                  width: int = 760, height: int = 220, share: bool = False) -> str:
    """Stacked bars over fixed bins (``series``: name, counts, color), x axis ticks, and the cut drawn
    as a vertical line: inline SVG. ``share``: each series as its share of its own total (compare shapes)."""
    left, bottom, top_margin = 48, 30, 10
    plot_w, plot_h = width - left - 10, height - bottom - top_margin
    counts = [np.asarray(c, dtype=np.float64) for _, c, _ in series]
    if share:  # side by side, each its share of its own total: shapes to compare, not stacked counts
        counts = [c / c.sum() if c.sum() else c for c in counts]
        top = max((float(c.max()) for c in counts if c.size), default=0.0) or 1.0
    else:
        stacked = np.sum(counts, axis=0) if counts else np.zeros(len(edges) - 1)
        top = float(stacked.max()) if stacked.size and stacked.max() > 0 else 1.0
    bins = len(edges) - 1
    bar_w = plot_w / bins
    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">',
             f'<line x1="{left}" y1="{top_margin + plot_h}" x2="{left + plot_w}" y2="{top_margin + plot_h}" '
             'stroke="#555"/>']
    base = np.zeros(bins)
    for k, ((name, _, color), c) in enumerate(zip(series, counts)):
        w = bar_w / len(series) if share else bar_w
        for b in np.flatnonzero(c > 0).tolist():
            h = plot_h * c[b] / top
            y = top_margin + plot_h - (0 if share else plot_h * base[b] / top) - h
            x = left + b * bar_w + (k * w if share else 0) + 0.5
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w - 1, 0.5):.1f}" '
                         f'height="{h:.1f}" fill="{color}"><title>{text(name)}: {number(c[b])} in '
                         f'[{number(edges[b])}, {number(edges[b + 1])})</title></rect>')
        if not share:
            base += c
    for k in range(0, bins + 1, max(bins // (5 if width >= 400 else 2), 1)):
        x = left + k * bar_w
        anchor = "end" if k == bins else "start" if k == 0 else "middle"
        parts.append(f'<text x="{x:.1f}" y="{height - 10}" text-anchor="{anchor}">{number(edges[k], 3)}</text>')
    parts.append(f'<text x="{left - 4}" y="{top_margin + 10}" text-anchor="end">{number(top, 3)}</text>'
                 f'<text x="{left - 4}" y="{top_margin + plot_h}" text-anchor="end">0</text>')
    if cut is not None and edges[0] <= cut <= edges[-1]:
        x = left + plot_w * (cut - edges[0]) / (edges[-1] - edges[0])
        parts.append(f'<line class="cut" x1="{x:.1f}" y1="{top_margin}" x2="{x:.1f}" y2="{top_margin + plot_h}" '
                     f'stroke="#000" stroke-width="2" stroke-dasharray="5,3"/><text x="{x + 4:.1f}" '
                     f'y="{top_margin + 12}">cut {number(cut)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def table(header: list[str], rows: list[list], classes: str = "") -> str:
    head = "".join(f"<th>{text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell if isinstance(cell, Raw) else text(cell)}</td>" for cell in row)
                   + "</tr>" for row in rows)
    return f'<table class="{classes}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


class Raw(str):
    """Markup made here (not text to escape)."""


STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;
padding:0 16px}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f4f4f4}td.num{text-align:right}
.samples td{max-width:380px;overflow-wrap:anywhere;font-size:13px}
.chart text{font-size:11px;fill:#333}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;
vertical-align:middle}.grid{display:flex;flex-wrap:wrap;gap:12px}.grid figure{margin:0}
figcaption{font-size:12px;font-weight:600}pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}
.note{color:#555}
"""


def legend(items: list[tuple[str, str]]) -> str:
    return '<p class="legend">' + "".join(f'<span style="background:{color}"></span>{text(name)}'
                                          for name, color in items) + "</p>"


def render(run: dict) -> str:
    """The page: ``run`` holds what the pipeline computed (see pipeline.report_page)."""
    summary, sections = run["summary"], []
    seconds = summary.get("seconds", {})
    facts = [["input", run["input"]], ["kcooc version", run["version"]], ["seed", run["seed"]],
             ["scorer", summary["scorer"]], ["lines read", number(summary["read"]["lines"])],
             ["pairs (rows)", number(summary["pairs"])],
             ["malformed lines skipped", number(sum(summary["read"]["skipped"].values()))],
             ["dropped by the rules", number(sum(v for k, v in summary["dropped"].items() if k not in
                                                  ("duplicate", "below_threshold", "not_selected")))],
             ["duplicates", number(summary["duplicates"])], ["scored (eligible)", number(summary["eligible"])],
             ["kept", number(summary["kept"])]]
    passes = [[name, f"{value:.2f} s"] for name, value in seconds.items()]
    sections.append(f'<section id="run"><h2>The run</h2>{table(["", ""], facts)}'
                    f'<h3>Time per pass</h3>{table(["pass", "seconds"], passes)}'
                    '<p class="note">The write pass, which also writes this page, is timed in the --summary.</p>'
                    f'<details><summary>Resolved config</summary><pre>{text(run["config"])}</pre></details></section>')
    labels = [name for name in REASONS[1:] if summary["dropped"].get(name)]
    colors = [DROPPED if name in ("below_threshold", "not_selected") else "#888" if name == "duplicate" else "#b2182b"
              for name in labels]
    samples = []
    for name in labels:
        for line in run["samples"].get(name, []):
            samples.append([name, line["line"], line["src"], line["tgt"], number(line["score"]),
                            line.get("weakest") or "–"])
    sections.append(
        '<section id="drops"><h2>Lines dropped, by reason</h2>'
        + (bar_chart(labels, [summary["dropped"][n] for n in labels], colors) if labels else "<p>No line dropped.</p>")
        + f'<h3>A seeded sample of each reason\'s lines (up to {SAMPLES_PER_REASON})</h3>'
        + table(["reason", "line", "source", "target", "score", "weakest feature"], samples, "samples") + "</section>")
    quantiles = summary["score_quantiles"]
    hist = run["score_histogram"]
    quantile_rows = [[name, number(quantiles.get(name))] for name in
                     ("min", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "max")]
    sections.append(
        '<section id="scores"><h2>Scores of the scored pairs</h2>'
        + legend([("kept", KEPT), ("dropped by the selection", DROPPED)])
        + histogram_svg(np.array(hist["edges"]), [("kept", np.array(hist["kept"]), KEPT),
                                                  ("dropped by the selection", np.array(hist["dropped"]), DROPPED)],
                        quantiles.get("cut"))
        + f'<p>Kept: <b>{number(summary["kept"])}</b> of {number(summary["eligible"])} scored pairs '
          f'(share {number(quantiles.get("kept_share"))}); the cut (lowest kept score) is '
          f'<b>{number(quantiles.get("cut"))}</b>. The same quantiles are in the --summary JSON '
          '(<code>score_quantiles</code>).</p>' + table(["quantile", "score"], quantile_rows) + "</section>")
    learned = run.get("learned")
    if learned:
        figures = []
        for feature in learned["features"]:
            figures.append(f'<figure><figcaption>{text(feature["name"])}</figcaption>' + histogram_svg(
                np.array(feature["edges"]), [("kept", np.array(feature["kept"]), KEPT),
                                             ("dropped", np.array(feature["dropped"]), DROPPED)],
                width=250, height=120, share=True) + "</figure>")
        sections.append(
            '<section id="features"><h2>Features of kept and dropped pairs</h2>'
            f'<p>A seeded sample of {number(learned["kept_sample"])} kept pairs and '
            f'{number(learned["dropped_sample"])} pairs the selection dropped; each side drawn as its share of its '
            'sample.</p>'
            + legend([("kept", KEPT), ("dropped by the selection", DROPPED)])
            + f'<div class="grid">{"".join(figures)}</div></section>')
        validation = learned["validation"] or {}
        metrics = [[k, number(v) if not isinstance(v, dict) else ", ".join(f"{a}: {number(b)}" for a, b in v.items())]
                   for k, v in validation.items()]
        sections.append('<section id="classifier"><h2>The classifier, held out</h2>'
                        '<p>Measured on a held-out share of the corpus\'s sampled pairs against their synthetic '
                        'noise (recall per noise kind: the share of noisy copies scored below 0.5).</p>'
                        + table(["metric", "value"], metrics) + "</section>")
        gate = learned["gate"]
        gate_rows = [[g["side"], number(g["prior"]), number(g["kept_low"]), number(g["dropped_low"]),
                      number(g["kept_mean"]), number(g["dropped_mean"]), number(g["weakest_dropped"])]
                     for g in gate["sides"]]
        sections.append(
            '<section id="gate"><h2>The language gate</h2>'
            '<p>Each gated side\'s language-ID posterior multiplies the probability by a factor in (0, 1]; a factor '
            'below 0.5 means the identifier takes the side for another language than the declared one.</p>'
            + (table(["gated side", "prior", "kept: share gated below 0.5", "dropped: share gated below 0.5",
                      "kept: mean factor", "dropped: mean factor", "sampled drops it weighed most on"], gate_rows)
               if gate_rows else "<p>No side is gated (no --src-lang/--tgt-lang language features).</p>")
            + "</section>")
    else:
        sections.append('<section id="features"><h2>Features</h2><p class="note">--scorer phsic ranks by PHSIC '
                        "alone: no features, classifier or language gate to show.</p></section>")
    title = f"kcooc filter-parallel: {run['input']}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{text(title)}</h1>" + "".join(sections) + "</body></html>\n")
