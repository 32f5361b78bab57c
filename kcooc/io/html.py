"""The building blocks of every ``--report`` page: one self-contained HTML file that makes no request.

:func:`page` is the shell: a Content-Security-Policy that forbids every request (``default-src 'none'``,
inline CSS only), the shared :data:`STYLE`, a title. Charts are hand-written inline SVG
(:func:`bar_chart`, :func:`histogram_svg`, :func:`line_chart`): no script, no font, no image file, no
address of any kind, so the page opens from a mail attachment. Every text goes through :func:`text`
(HTML-escaped; a lone surrogate shown as its ``\\udXXX`` escape); markup made here is :class:`Raw`.
Each method's page (``filtering/report.py``, ``ca/report.py``) chooses what to show and assembles these.
"""

from __future__ import annotations

import html
import math

import numpy as np

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
CSP = "default-src 'none'; style-src 'unsafe-inline'"  # no request of any kind; the inline <style> only


class Raw(str):
    """Markup made here (not text to escape)."""


def text(value) -> str:
    """``value`` as escaped HTML text; a lone surrogate (which UTF-8 cannot hold) as its escape.

    Parameters
    ----------
    value : object
        Anything; its ``str``.

    Returns
    -------
    str
        HTML text that shows ``value`` literally (``<``, ``>``, ``&`` and both quotes escaped).
    """
    string = str(value).encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(string, quote=True)


def number(value, digits: int = 4) -> str:
    """A number for the page.

    Parameters
    ----------
    value : int, float or None
        The number; None means there is none.
    digits : int, default 4
        Significant digits of a float.

    Returns
    -------
    str
        An integer with thousands separators, a float to ``digits`` significant digits, ``nan``, or an
        en dash for None.
    """
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    value = float(value)
    return "nan" if np.isnan(value) else f"{value:.{digits}g}"


def page(title: str, sections: list[str]) -> str:
    """The whole document: the CSP that forbids every request, the inline style, ``title`` as the title
    and first heading, then ``sections`` (markup) in order.

    Parameters
    ----------
    title : str
        Plain text (escaped here).
    sections : list of str
        Markup, each usually one ``<section id="...">``.

    Returns
    -------
    str
        The page, ending in a newline.
    """
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{text(title)}</h1>" + "".join(sections) + "</body></html>\n")


def config_details(config: str) -> str:
    """The resolved config, folded away under its summary line.

    Parameters
    ----------
    config : str
        The config as YAML text (escaped here).

    Returns
    -------
    str
        A ``<details>`` element.
    """
    return f'<details><summary>Resolved config</summary><pre>{text(config)}</pre></details>'


def table(header: list[str], rows: list[list], classes: str = "") -> str:
    """A table.

    Parameters
    ----------
    header : list of str
        The header cells.
    rows : list of list
        The rows' cells: each is escaped text unless it is :class:`Raw` markup.
    classes : str, default ""
        The table's CSS classes (``samples``: narrow, wrapping cells).

    Returns
    -------
    str
        A ``<table>`` element.
    """
    head = "".join(f"<th>{text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell if isinstance(cell, Raw) else text(cell)}</td>" for cell in row)
                   + "</tr>" for row in rows)
    return f'<table class="{classes}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def legend(items: list[tuple[str, str]]) -> str:
    """One line of color swatches, each with its name.

    Parameters
    ----------
    items : list of (str, str)
        Name (escaped here) and CSS color of each swatch.

    Returns
    -------
    str
        A ``<p class="legend">`` element.
    """
    return '<p class="legend">' + "".join(f'<span style="background:{color}"></span>{text(name)}'
                                          for name, color in items) + "</p>"


def bar_chart(labels: list[str], values: list[int], colors: list[str], width: int = 760) -> str:
    """Horizontal bars, one a label, with their counts: inline SVG.

    Parameters
    ----------
    labels : list of str
        One label per bar (escaped here).
    values : list of int
        The counts, drawn against the largest.
    colors : list of str
        One CSS color per bar.
    width : int, default 760
        The chart's width in pixels (its height follows from the number of bars).

    Returns
    -------
    str
        ``<svg class="chart">...</svg>``.
    """
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
    """Stacked bars over fixed bins, x axis ticks, and the cut drawn as a vertical line: inline SVG.

    Parameters
    ----------
    edges : ndarray of shape (bins + 1,)
        The bins' edges.
    series : list of (str, ndarray, str)
        Name, counts per bin and CSS color of each series.
    cut : float, optional
        Where to draw the dashed vertical line (if within the bins).
    width, height : int
        The chart's size in pixels.
    share : bool, default False
        Draw each series side by side as its share of its own total (to compare shapes), not stacked counts.

    Returns
    -------
    str
        ``<svg class="chart">...</svg>``.
    """
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


def ticks(low: float, high: float, log: bool = False, integer: bool = False) -> list[float]:
    """Tick values for an axis from ``low`` to ``high``.

    Parameters
    ----------
    low, high : float
        The range to cover (both > 0 on a log axis).
    log : bool, default False
        A log axis: powers of ten from the one at or below ``low`` to the one at or above ``high`` (every
        other one, or fewer, past seven).
    integer : bool, default False
        A linear axis of whole numbers: the step is at least 1.

    Returns
    -------
    list of float
        On a linear axis, the multiples within [low, high] of a round step (1, 2 or 5 times a power of ten)
        that gives about five ticks.
    """
    if log:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        last = max(last, first + 1)
        step = max(1, math.ceil((last - first) / 6))
        return [10.0 ** (first + k * step) for k in range(math.ceil((last - first) / step) + 1)]
    if not high > low:
        return [low]
    raw = (high - low) / 5
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    step = max(step, 1.0) if integer else step
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, math.floor(high / step + 1e-9) + 1)]


def line_chart(series: list[tuple[str, np.ndarray, np.ndarray, str]], *, log_y: bool = False,
               x_label: str = "", y_label: str = "", level: tuple[float, str] | None = None,
               width: int = 760, height: int = 240) -> str:
    """Curves through points (``series``: name, x values, y values, color): inline SVG, each point with its
    value as a tooltip; ``log_y`` draws y on a log scale (values <= 0 or not finite are left out);
    ``level`` (y, label): a dashed horizontal line, e.g. a tolerance.

    Parameters
    ----------
    series : list of (str, ndarray, ndarray, str)
        Name, x values, y values (of the same length) and color of each curve.
    log_y : bool, default False
        A log-scaled y axis with a tick at every power of ten.
    x_label, y_label : str
        Axis titles (plain text).
    level : (float, str), optional
        A horizontal line at this y with its label.
    width, height : int
        The chart's size in pixels.

    Returns
    -------
    str
        ``<svg class="chart">...</svg>``.
    """
    left, right, bottom, top_margin = 64, 16, 40, 12
    plot_w, plot_h = width - left - right, height - bottom - top_margin
    points = []
    for name, xs, ys, color in series:
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        keep = np.isfinite(xs) & np.isfinite(ys) & ((ys > 0) if log_y else True)
        points.append((name, xs[keep], ys[keep], color))
    xs_all = np.concatenate([p[1] for p in points] + [np.zeros(0)])
    ys_all = np.concatenate([p[2] for p in points] + ([np.array([level[0]])] if level and
                                                      (level[0] > 0 or not log_y) else []) + [np.zeros(0)])
    x_low, x_high = (float(xs_all.min()), float(xs_all.max())) if xs_all.size else (0.0, 1.0)
    if not x_high > x_low:
        x_low, x_high = x_low - 0.5, x_high + 0.5
    if log_y:
        y_low, y_high = (float(ys_all.min()), float(ys_all.max())) if ys_all.size else (0.1, 1.0)
        y_ticks = ticks(y_low, y_high, log=True)
        y_low, y_high = y_ticks[0], y_ticks[-1]
    else:
        y_low, y_high = (min(float(ys_all.min()), 0.0), float(ys_all.max())) if ys_all.size else (0.0, 1.0)
        y_high = y_high if y_high > y_low else y_low + 1.0
        y_ticks = ticks(y_low, y_high)
        if len(y_ticks) > 1 and y_ticks[-1] < y_high:  # the axis ends at the tick above the largest value
            y_ticks.append(y_ticks[-1] + y_ticks[1] - y_ticks[0])
            y_high = y_ticks[-1]
    integer = bool(xs_all.size) and bool(np.all(xs_all == np.round(xs_all)))

    def at_x(x):
        return left + plot_w * (x - x_low) / (x_high - x_low)

    def at_y(y):
        if log_y:
            y = (math.log10(y) - math.log10(y_low)) / (math.log10(y_high) - math.log10(y_low))
        else:
            y = (y - y_low) / (y_high - y_low)
        return top_margin + plot_h * (1 - y)

    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">',
             f'<line x1="{left}" y1="{top_margin + plot_h}" x2="{left + plot_w}" y2="{top_margin + plot_h}" '
             f'stroke="#555"/><line x1="{left}" y1="{top_margin}" x2="{left}" y2="{top_margin + plot_h}" '
             'stroke="#555"/>']
    for tick in y_ticks:
        y = at_y(tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{number(tick, 3)}</text>')
    for x in ticks(x_low, x_high, integer=integer):
        label = number(round(x)) if integer else number(x, 3)
        parts.append(f'<text x="{at_x(x):.1f}" y="{top_margin + plot_h + 16}" text-anchor="middle">{label}</text>')
    if level is not None and (level[0] > 0 or not log_y):
        y = at_y(level[0])
        parts.append(f'<line class="level" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#000" '
                     f'stroke-dasharray="5,3"/><text x="{left + plot_w - 4}" y="{y - 4:.1f}" text-anchor="end">'
                     f'{text(level[1])}</text>')
    for name, xs, ys, color in points:
        coordinates = " ".join(f"{at_x(x):.1f},{at_y(y):.1f}" for x, y in zip(xs.tolist(), ys.tolist()))
        parts.append(f'<polyline points="{coordinates}" fill="none" stroke="{color}" stroke-width="1.5"/>')
        parts += [f'<circle cx="{at_x(x):.1f}" cy="{at_y(y):.1f}" r="2.5" fill="{color}"><title>{text(name)}: '
                  f'{number(x)}, {number(y)}</title></circle>' for x, y in zip(xs.tolist(), ys.tolist())]
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">{text(x_label)}</text>'
                 f'<text x="14" y="{top_margin + plot_h / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {top_margin + plot_h / 2:.1f})">{text(y_label)}</text></svg>')
    return "".join(parts)
