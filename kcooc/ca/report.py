"""``ca embed --report``: one self-contained HTML page of what an embedding run did (blocks: kcooc/io/html.py).

Named as Niitsuma 2022 names them: the word x context table N (flat Eq. 63, skip Eq. 62, cut Eq. 64),
raised entry by entry to ``power``; the CA matrix Xi_hat = D(r/n)^-1/2 (N/n - r c^t/n^2) D(c/n)^-1/2
(Eq. 59, margins as proportions), decomposed by the delayed sparse randomized SVD (DSSVD, §6) into
U_hat S_hat V_hat^t without ever being formed; semi-supervised CA (SCA, Def. 5) with the tuning tables
Gamma^r = Gamma^c = 11^t + S. The squared singular values are the principal inertias; all of them sum to
the total inertia chi^2/n, which CAOperator computes from N's non-zeros, so each kept component's share of
it costs nothing. For SCA the total is the squared norm of the matrix of Def. 5, which SCAOperator computes
exactly by parts (N's non-zeros, and the supervised words' rows and columns). PPMI-SVD's squares sum to
the PPMI matrix's squared norm.
The residuals are the solver's: ||Xi_hat v_i - s_i u_i|| / s_i of every returned triple
(svd.randomized_svd), and after the sketch and each power iteration the largest of them.

:func:`report_page` gathers a run's numbers (:func:`run_of`) and :func:`render` draws them.
"""

from __future__ import annotations

import numpy as np

from .. import __version__
from ..config import dump
from ..io.html import config_details, line_chart, number, page, table, text
from ..io.limits import display_name
from .model import word_similarity

SPECTRUM, SHARE, RESIDUAL = "#2b7bba", "#1a9850", "#d95f02"
SHOWN_PAIRS = 10  # supervised pairs shown at each end (the highest and the lowest tuning ratios)
POWERS = {1.0: "CA", 0.5: "ROOT-CA", 0.25: "ROOTROOT-CA"}
TABLES = {"flat": "flat (Eq. 63: the words after a word)", "skip": "skip (Eq. 62: either side)",
          "cut": "cut (Eq. 64: the tail-cut kernel, offset counts above independence)"}


def inertia_shares(singular_values: np.ndarray, total: float | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Each component's share of ``total`` (its squared singular value over it) and the cumulative shares,
    or None where there is no total to share (none given, or a total of 0: every singular value is 0).

    Parameters
    ----------
    singular_values : ndarray of shape (k,)
        The kept singular values, largest first.
    total : float or None
        The sum of every squared singular value of the decomposed matrix (CA: the total inertia chi^2/n;
        SCA: the squared norm of its matrix; PPMI-SVD: the PPMI matrix's).

    Returns
    -------
    (ndarray, ndarray) or None
        Shares and cumulative shares, each of shape (k,).
    """
    if total is None or not total > 0:
        return None
    share = np.asarray(singular_values, dtype=np.float64) ** 2 / total
    return share, np.cumsum(share)


def supervision_details(words: list[str], vectors: np.ndarray, pairs: list[tuple[int, int, float]], S, pairs_read: int,
                        file: str, weight: float) -> dict:
    """What SCA's section shows.

    Parameters
    ----------
    words : list of str
        The vocabulary (row i of ``vectors`` is ``words[i]``'s).
    vectors : ndarray of shape (words, dims)
        The fitted word vectors.
    pairs : list of (int, int, float)
        The supervision file's pairs with both words in the vocabulary: word ids and score.
    S : sparse matrix of shape (words, words)
        The supervision matrix they made (kcooc.ca.sca.supervision_matrix).
    pairs_read : int
        How many pairs the file has.
    file : str
        The file as the page names it.
    weight : float
        The supervision weight.

    Returns
    -------
    dict
        The counts (pairs read, used, distinct, supervised words), the range of the tuning ratios
        1 + S_ij (Niitsuma 2022, Eq. 57), Spearman's rho of the vectors' cosines with the scores on the
        very pairs that tuned them, and ``rows``: the pairs with the highest and the lowest ratios (all of
        them if few) as (word, word, score, ratio, cosine).
    """
    S = S.tocoo()
    upper = S.row < S.col  # S is symmetric with a zero diagonal: one entry per pair
    i, j, ratio = S.row[upper], S.col[upper], 1.0 + S.data[upper]
    order = np.lexsort((j, i, -ratio))  # highest ratio first, ties by word ids
    shown = order if order.size <= 2 * SHOWN_PAIRS else np.r_[order[:SHOWN_PAIRS], order[-SHOWN_PAIRS:]]
    unit = np.asarray(vectors, dtype=np.float64)
    unit = unit / np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), np.finfo(float).tiny)
    score = {}
    for a, b, value in pairs:
        score.setdefault((min(a, b), max(a, b)), value)
    rows = [[words[a], words[b], score.get((a, b)), float(r), float(unit[a] @ unit[b])]
            for a, b, r in zip(i[shown].tolist(), j[shown].tolist(), ratio[shown].tolist())]
    spearman = word_similarity(words, vectors, [(words[a], words[b], value) for a, b, value in pairs])["spearman"]
    return {"file": file, "weight": weight, "pairs_read": pairs_read, "pairs_used": len(pairs),
            "pairs": int(upper.sum()), "words": int(np.unique(np.r_[i, j]).size),
            "ratio_min": float(ratio.min()) if ratio.size else None,
            "ratio_max": float(ratio.max()) if ratio.size else None,
            "spearman": spearman, "rows": rows, "all_shown": bool(order.size <= 2 * SHOWN_PAIRS)}


def run_of(cfg, model, *, input_name: str, output: str, words: list[str], counts: np.ndarray, table_shape,
           nonzeros: int, seconds: dict, history: list[float], sca: tuple | None = None) -> dict:
    """The numbers the page shows; nothing is recomputed but the supervised pairs' cosines.

    Parameters
    ----------
    cfg : CaConfig
        The run's resolved config.
    model : CorrespondenceAnalysis or PPMISVD
        The fitted model (its singular values, relative residuals, power iterations, total inertia).
    input_name, output : str
        The input as the page names it, and the vectors' file.
    words : list of str
        The vocabulary.
    counts : ndarray of int
        Each word's corpus count.
    table_shape : (int, int)
        The word x context table's shape.
    nonzeros : int
        Its non-zeros.
    seconds : dict of str to float
        Seconds per step so far.
    history : list of float
        The largest relative residual after the sketch and after each power iteration.
    sca : tuple, optional
        For SCA: (S, the supervised pairs as word ids with their scores, the number of pairs in the file).

    Returns
    -------
    dict
        What :func:`render` draws (JSON-serialisable).
    """
    supervision = None if sca is None else supervision_details(
        words, model.vectors_, sca[1], sca[0], sca[2], display_name(cfg.supervision), cfg.supervision_weight)
    return {"input": input_name, "output": output, "version": __version__, "seed": cfg.seed, "config": dump(cfg),
            "method": cfg.method, "power": cfg.power, "table": cfg.table, "window": cfg.window, "sca": sca is not None,
            "vocabulary": len(words), "tokens": int(np.sum(counts)), "shape": [int(x) for x in table_shape],
            "nonzeros": int(nonzeros), "seconds": dict(seconds),
            "singular_values": np.asarray(model.singular_values_, dtype=np.float64).tolist(),
            "relative_residuals": np.asarray(model.relative_residuals_, dtype=np.float64).tolist(),
            "total_inertia": float(model.total_inertia_),
            "power_iterations": int(model.power_iterations_), "most_power_iterations": cfg.power_iterations,
            "tol": cfg.tol, "history": [float(h) for h in history], "supervision": supervision}


def report_page(cfg, model, **run) -> str:
    """The page of a run.

    Parameters
    ----------
    cfg : CaConfig
        The run's resolved config.
    model : CorrespondenceAnalysis or PPMISVD
        The fitted model.
    **run
        The other keyword arguments of :func:`run_of`.

    Returns
    -------
    str
        The HTML page.
    """
    return render(run_of(cfg, model, **run))


def _method_name(run: dict) -> str:
    if run["method"] == "ppmi":
        return "PPMI-SVD (Levy, Goldberg & Dagan 2015): a reference, not CA"
    power = float(run["power"])
    name = "N" if power == 1 else f"N^{number(power)}"
    if run["sca"]:
        return f"semi-supervised CA (SCA, Niitsuma 2022, Def. 5) of {name}"
    known = f" ({POWERS[power]})" if power in POWERS and power != 1 else ""
    return f"CA of {name}{known} (Niitsuma 2022, Def. 3)"


def _run_section(run: dict) -> str:
    rows, cols = run["shape"]
    converged = "–" if run["tol"] is None else (
        "yes" if max(run["relative_residuals"], default=0.0) <= run["tol"] else "no")
    facts = [["input", run["input"]], ["vectors written to", run["output"]], ["kcooc version", run["version"]],
             ["seed", run["seed"]], ["method", _method_name(run)],
             ["table", f"{TABLES.get(run['table'], run['table'])}, window {run['window']}"],
             ["vocabulary (words)", number(run["vocabulary"])], ["tokens of the vocabulary", number(run["tokens"])],
             ["table size (words x contexts)", f"{number(rows)} x {number(cols)}"],
             ["non-zeros of the table", number(run["nonzeros"])],
             ["share of the table's cells that are non-zero", number(run["nonzeros"] / max(rows * cols, 1))],
             ["dimensions kept", number(len(run["singular_values"]))],
             ["power iterations done (at most)", f"{run['power_iterations']} ({run['most_power_iterations']})"],
             ["tol", number(run["tol"])], ["every relative residual at or below tol", converged]]
    steps = [[name, f"{value:.2f} s"] for name, value in run["seconds"].items()]
    return (f'<section id="run"><h2>The run</h2>{table(["", ""], facts)}'
            f'<h3>Time per step</h3>{table(["step", "seconds"], steps)}'
            '<p class="note">Writing this page is timed in the --summary (total).</p>'
            f'{config_details(run["config"])}</section>')


def _spectrum_section(run: dict) -> str:
    s = np.asarray(run["singular_values"], dtype=np.float64)
    k = np.arange(1, s.size + 1)
    residual = np.asarray(run["relative_residuals"], dtype=np.float64)
    shares = inertia_shares(s, run["total_inertia"])
    ppmi = run["method"] == "ppmi"
    square, total = ("s<sub>i</sub><sup>2</sup>", "the squared norm of the PPMI matrix") if ppmi else \
        ("principal inertias s<sub>i</sub><sup>2</sup>", "the total inertia χ<sup>2</sup>/n")
    source = "computed from the table's non-zeros"
    if run["sca"]:
        total = "the total inertia of the SCA matrix (its squared norm)"
        source = "computed exactly from the table's non-zeros and the supervised words' rows and columns"
    if ppmi:
        what = "the PPMI matrix (context counts smoothed; never formed: kcooc.ca.ppmi)"
    elif run["sca"]:
        what = "the SCA matrix D(r′)<sup>-1/2</sup> [N ∘ (Γ N Γ) − (Γ N) ∘ (N Γ)] D(c′)<sup>-1/2</sup> (Def. 5)"
    else:
        what = ("the CA matrix D(r/n)<sup>-1/2</sup> (N/n − r c<sup>t</sup>/n<sup>2</sup>) D(c/n)<sup>-1/2</sup> "
                "(Niitsuma 2022, Eq. 59, with r and c the table's margins, n its total, taken as proportions)")
    parts = [f'<section id="spectrum"><h2>Singular values</h2><p>The {number(s.size)} largest singular values '
             f's<sub>1</sub> ≥ s<sub>2</sub> ≥ … of {what}, by the delayed sparse randomized SVD (§6).</p>',
             line_chart([("singular value", k, s, SPECTRUM)], x_label="component i", y_label="s_i")]
    if shares is None:
        parts.append('<p class="note">No share of the total is shown: the sum of every squared singular value '
                     "of the matrix is 0.</p>")
        header = ["i", "singular value s_i", "s_i^2", "relative residual", "residual norm"]
        rows = [[int(i), number(v), number(v * v), number(r), number(r * v)] for i, v, r in zip(k, s, residual)]
    else:
        share, cumulative = shares
        parts.append(f'<p>Their squares (the {square}) sum to {number(float((s * s).sum()))}: a share of '
                     f'<b>{number(float(cumulative[-1]))}</b> of {total} = {number(run["total_inertia"])}, the sum '
                     f'of the squares of all the matrix\'s singular values ({source}; the matrix is never formed).</p>'
                     + line_chart([("cumulative share", k, cumulative, SHARE)], x_label="component i",
                                  y_label="cumulative share"))
        header = ["i", "singular value s_i", "s_i^2", "share of the total", "cumulative share", "relative residual",
                  "residual norm"]
        rows = [[int(i), number(v), number(v * v), number(a), number(c), number(r), number(r * v)]
                for i, v, a, c, r in zip(k, s, share, cumulative, residual)]
    opened = " open" if s.size <= 30 else ""
    parts.append(f'<details{opened}><summary>Every component ({number(s.size)})</summary>'
                 + table(header, rows) + "</details></section>")
    return "".join(parts)


def _residual_section(run: dict) -> str:
    s = np.asarray(run["singular_values"], dtype=np.float64)
    residual = np.asarray(run["relative_residuals"], dtype=np.float64)
    history = np.asarray(run["history"], dtype=np.float64)
    level = None if run["tol"] is None else (run["tol"], f"tol {number(run['tol'])}")
    parts = ['<section id="residuals"><h2>Residuals of the randomized SVD</h2><p>For every returned triple '
             '(u<sub>i</sub>, s<sub>i</sub>, v<sub>i</sub>) the solver measures ‖M v<sub>i</sub> − s<sub>i</sub> '
             'u<sub>i</sub>‖ / s<sub>i</sub> from its own products with the matrix M it decomposed (never formed); '
             '‖M<sup>t</sup> u<sub>i</sub> − s<sub>i</sub> v<sub>i</sub>‖ is 0 by construction. Small means the '
             f'i-th singular pair is accurate; the largest converge first. Largest: <b>{number(residual.max())}'
             f'</b>, median {number(float(np.median(residual)))}.</p>',
             line_chart([("relative residual", np.arange(1, s.size + 1), residual, RESIDUAL)], log_y=True,
                        x_label="component i", y_label="relative residual", level=level)]
    if history.size:
        parts.append('<h3>The largest relative residual after the sketch (0) and each power iteration</h3>'
                     + line_chart([("largest relative residual", np.arange(history.size), history, RESIDUAL)],
                                  log_y=True, x_label="power iterations done", y_label="largest relative residual",
                                  level=level))
    return "".join(parts) + "</section>"


def _supervision_section(sup: dict) -> str:
    facts = [["supervision file", sup["file"]], ["weight", number(sup["weight"])],
             ["pairs in the file", number(sup["pairs_read"])],
             ["pairs with both words in the vocabulary", number(sup["pairs_used"])],
             ["distinct supervised pairs (S_ij, i < j)", number(sup["pairs"])],
             ["supervised words (the block where the Hadamard terms are formed)", number(sup["words"])],
             ["tuning ratios 1 + S_ij", f"{number(sup['ratio_min'])} to {number(sup['ratio_max'])}"],
             ["Spearman's rho: cosine of the vectors vs score, on these pairs", number(sup["spearman"], 3)]]
    which = "Every supervised pair" if sup["all_shown"] else \
        f"The {SHOWN_PAIRS} supervised pairs with the highest tuning ratios, then the {SHOWN_PAIRS} with the lowest"
    rows = [[a, b, number(score), number(ratio), number(cosine, 3)] for a, b, score, ratio, cosine in sup["rows"]]
    return ('<section id="supervision"><h2>The supervision (SCA)</h2><p>SCA tunes the table with '
            'Γ<sup>r</sup> = Γ<sup>c</sup> = 11<sup>t</sup> + S (Niitsuma 2022, Def. 5, Eq. 57-58): a supervised '
            'pair\'s tuning ratio is 1 + weight × score / max score, every other pair\'s 1 (LCA). Spearman\'s '
            'rho is measured on the pairs that tuned the vectors: it shows the tuning took, not how the vectors '
            'generalise.</p>' + table(["", ""], facts) + f"<h3>{text(which)}</h3>"
            + table(["word", "word", "score in the file", "tuning ratio", "cosine of the vectors"], rows, "samples")
            + "</section>")


def render(run: dict) -> str:
    """The page: the run, the singular values, the residuals, and for SCA the supervision.

    Parameters
    ----------
    run : dict
        What :func:`run_of` gathered.

    Returns
    -------
    str
        The HTML page (kcooc.io.html.page).
    """
    sections = [_run_section(run), _spectrum_section(run), _residual_section(run)]
    if run["supervision"]:
        sections.append(_supervision_section(run["supervision"]))
    return page(f"kcooc ca embed: {run['input']}", sections)
