"""``filter-parallel --report``: one self-contained HTML page of what a run did, for a reader the next morning.

Plain functions in two groups. Choosing what to show (:func:`plan`, :func:`histogram`, :func:`sample_rows`):
seeded samples of rows by the hash of their row number (``sampling.sample_priorities``), so the same
rows on every engine and ``--jobs``, chosen with bounded memory; histograms with fixed bins. Rendering
(:func:`render`): the page's sections, built from the blocks every report shares (kcooc/io/html.py: the
page that makes no request, escaped text, inline SVG charts). The pipeline (pipeline.py) computes what
the page shows and calls :func:`render`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..io.html import bar_chart, config_details, histogram_svg, legend, number, page, table, text
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
                    f'{config_details(run["config"])}</section>')
    labels = [name for name in REASONS[1:] if summary["dropped"].get(name)]
    colors = [DROPPED if name in ("below_threshold", "not_selected") else "#888" if name == "duplicate" else "#b2182b"
              for name in labels]
    samples = []
    for name in labels:
        for line in run["samples"].get(name, []):
            score = line["score"]  # a line a rule dropped was never scored (NaN)
            samples.append([name, line["line"], line["src"], line["tgt"],
                            "not scored" if score is None or np.isnan(score) else number(score),
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
    return page(f"kcooc filter-parallel: {run['input']}", sections)
