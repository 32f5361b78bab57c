"""The filtering benchmark's page and JSON file (``make filter-eval``): a headline per test set, the
leave-one-family-out cells, how sure the shortfalls and peer wins are (auc_intervals.py), and each set's table of
every scorer, from the evaluations eval_filtering.py made (or saved, for ``--report-only``)."""

from __future__ import annotations

import json
import os

import numpy as np

from kcooc.filtering.noise import NOISE_FAMILIES
from scripts.experiments.filtering.auc_intervals import LEVEL, auc_interval, comparable, difference_interval
from scripts.experiments.filtering.benchmark import CLOSEST_FAMILY, HELD_OUT_TITLES, KINDS, LEARNED, LOFO
from scripts.experiments.filtering.ood_noise import OOD_KINDS
from scripts.reports import write_report


def lofo_cells(e: dict) -> dict:
    """Each kind's AUC from the learned run trained without its closest family (CLOSEST_FAMILY)."""
    return {kind: e["lofo"][CLOSEST_FAMILY[kind]][kind] for kind in e["names"] if CLOSEST_FAMILY[kind] in e["lofo"]}


def print_learned(evaluations: dict, seconds: float) -> None:
    """The learned rows of each test set and the mean overall AUC (a development run; nothing written)."""
    for e in evaluations.values():
        r, cells = e["results"][LEARNED], lofo_cells(e)
        print(f"\n{e['title']}: AUC {fmt(r['auc'])} (sd over training seeds {r['auc_sd']:.3f}), "
              f"P = R {fmt(r['precision'])}")
        print("| row | " + " | ".join(e["names"]) + " |")
        print("| default | " + " | ".join(fmt(r[k]) for k in e["names"]) + " |")
        print("| family left out | " + " | ".join(fmt(cells.get(k, float("nan"))) for k in e["names"]) + " |")
        print(f"worst kind: {worst(r, e['names'])}; left out: {worst(cells, e['names'])}")
    print(f"\nmean AUC {np.mean([e['results'][LEARNED]['auc'] for e in evaluations.values()]):.3f} "
          f"({seconds / 60:.1f} min)")


def fmt(value: float) -> str:
    return "–" if value != value else f"{value:.3f}"


def worst(row: dict, names: list[str]) -> str:
    kinds = [k for k in names if row.get(k, float("nan")) == row.get(k, float("nan"))]
    if not kinds:
        return "–"
    kind = min(kinds, key=lambda k: row[k])
    return f"{kind} {fmt(row[kind])}"


def is_kcooc(label: str) -> bool:
    return label.startswith("kcooc")


def peer_wins(rows: dict, names: list[str]) -> dict:
    """(kcooc row, kind) -> (best peer, its value) where a peer row ranks that kind better (at the 3 decimals shown)."""
    wins = {}
    for label, row in rows.items():
        if not is_kcooc(label):
            continue
        for kind in ["auc", *names]:
            peers = [(round(r[kind], 3), peer) for peer, r in rows.items()
                     if not is_kcooc(peer) and r.get(kind) == r.get(kind) and kind in r]
            if peers and kind in row and row[kind] == row[kind] and max(peers)[0] > round(row[kind], 3):
                wins[label, kind] = (max(peers)[1], max(peers)[0])
    return wins


def scorer_table(rows: dict, names: list[str], seconds: bool = True) -> list[str]:
    """Rows (scorer -> metrics) as a table: the best value of each column bold, a kcooc cell a peer beats marked †."""
    wins = peer_wins(rows, names)
    columns = ["auc", "precision", *names]
    best = {c: max((round(r[c], 3) for r in rows.values() if c in r and r[c] == r[c]), default=None) for c in columns}

    def cell(label, row, column):
        if column not in row:
            return "–"
        text = fmt(row[column])
        if text != "–" and round(row[column], 3) == best[column]:
            text = f"**{text}**"
        return text + (" †" if (label, column) in wins else "")
    lines = ["| scorer | AUC | P = R | " + " | ".join(names) + (" | seconds |" if seconds else " |"),
             "|---|---|---|" + "---|" * len(names) + ("---|" if seconds else "")]
    for label, row in rows.items():
        lines.append(f"| {label} | " + " | ".join(cell(label, row, c) for c in columns)
                     + (f" | {row['seconds']:.1f} |" if seconds and "seconds" in row else " | |" if seconds else " |"))
    for label, trained in ((LEARNED, "The learned score"), (LOFO, "With the closest family left out, it")):
        behind = [f"`{kind if kind != 'auc' else 'overall'}` ({peer} {value:.3f} against {rows[label][kind]:.3f})"
                  for (row, kind), (peer, value) in wins.items() if row == label]
        if behind:
            lines += ["", f"{trained} is behind a peer (†) on " + "; ".join(behind) + "."]
    return lines


def with_lofo(e: dict) -> dict:
    """The ranking rows with the learned score's leave-one-family-out row after its default row."""
    rows = {}
    for label, row in e["results"].items():
        rows[label] = row
        if label == LEARNED and e["lofo"]:
            rows[LOFO] = lofo_cells(e)
    return rows


def headline(e: dict) -> dict:
    """The numbers of a test set's headline row."""
    r, rows = e["results"][LEARNED], with_lofo(e)
    peers = {label: row["auc"] for label, row in e["results"].items() if not is_kcooc(label)}
    wins = {kind for (label, kind) in peer_wins(rows, e["names"]) if label == LEARNED and kind != "auc"}
    best_peer = max(peers, key=peers.get) if peers else None
    return {"auc": r["auc"], "worst_kind": worst(r, e["names"]), "worst_kind_lofo": worst(lofo_cells(e), e["names"]),
            "best_peer": best_peer, "best_peer_auc": peers.get(best_peer, float("nan")),
            "kinds_a_peer_wins": sorted(wins, key=e["names"].index)}


def intervals(e: dict, workdir: str) -> dict:
    """The learned score's cells below .90 (with every family, and with the closest family left out), each with its
    AUC's interval, and each cell a peer wins (†) with the paired interval of the difference kcooc - peer
    (auc_intervals.py); {} for a run saved before its scores were."""
    path = os.path.join(workdir, e.get("scores_file", ""))
    if "scores" not in e or not os.path.isfile(path):
        return {}
    with np.load(path) as saved:
        scored = {label: comparable(saved[f"arr_{i}"]) for i, label in enumerate(e["scores"])}
    kind, index = np.asarray(e["kind"]), {name: k for k, name in enumerate(e["names"])}

    def split(row: str, column: str) -> tuple[np.ndarray, np.ndarray]:
        run = f"lofo:{CLOSEST_FAMILY[column]}" if row == LOFO else row
        bad = kind >= 0 if column == "auc" else kind == index[column]
        return scored[run][kind < 0], scored[run][bad]

    below = [{"row": row, "kind": column, **dict(zip(("auc", "low", "high"), auc_interval(*split(row, column))))}
             for row, cells in ((LEARNED, e["results"][LEARNED]), (LOFO, lofo_cells(e)))
             for column in e["names"] if cells.get(column, 1.0) < 0.90]
    ahead = [{"row": row, "kind": column, "peer": peer, **dict(zip(("difference", "low", "high"), difference_interval(
        split(row, column), split(peer, column))))}
        for (row, column), (peer, _) in peer_wins(with_lofo(e), e["names"]).items() if row in (LEARNED, LOFO)]
    return {"below_90": below, "peer_ahead": ahead}


def interval_section(evaluations: dict, found: dict) -> list[str]:
    """The page's section on how sure its shortfalls and peer wins are, from each set's ``intervals`` (``found``,
    by the keys of ``evaluations``); [] without saved scores."""
    sets = {evaluations[name]["title"]: cells for name, cells in found.items() if cells}
    if not sets:
        return []
    below = [(title, cell) for title, cells in sets.items() for cell in cells["below_90"]]
    ahead = [(title, cell) for title, cells in sets.items() for cell in cells["peer_ahead"]]
    row_name = {LEARNED: "every family", LOFO: "family left out"}
    inside = sum(cell["high"] >= 0.90 for _, cell in below)
    beyond = sum(cell["high"] < 0 for _, cell in ahead)
    level = f"{LEVEL:.0%}"
    lines = ["", "## How sure these numbers are", "",
             "A kind of noise has a few dozen to a few hundred pairs on a test set (each set's section below counts "
             f"them), so one cell's AUC moves by a few hundredths with the sample. Intervals: {level}, from DeLong's "
             "variance of the AUC, and for a peer ahead DeLong's paired test of the two AUCs on the same pairs "
             "(DeLong, DeLong & Clarke-Pearson 1988; `scripts/experiments/filtering/auc_intervals.py`).", "",
             f"Cells of the learned score below .90: {len(below)}; .90 lies inside the {level} interval of {inside} "
             f"of them. Cells where a peer ranks better (†): {len(ahead)}; the peer is ahead beyond the noise (the "
             f"interval of kcooc - peer below 0) on {beyond}."]
    if below:
        lines += ["", f"| test set | learned score trained with | kind | AUC | {level} interval | .90 inside |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {title} | {row_name[c['row']]} | `{c['kind']}` | {c['auc']:.3f} | {c['low']:.3f} – "
                  f"{c['high']:.3f} | {'yes' if c['high'] >= 0.90 else 'no'} |" for title, c in below]
    if ahead:
        lines += ["", f"| test set | learned score trained with | kind | peer | kcooc - peer | {level} interval | "
                  "peer ahead beyond noise |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {title} | {row_name[c['row']]} | `{c['kind'] if c['kind'] != 'auc' else 'overall'}` | "
                  f"{c['peer']} | {c['difference']:+.3f} | {c['low']:+.3f} – {c['high']:+.3f} | "
                  f"{'yes' if c['high'] < 0 else 'no'} |" for title, c in ahead]
    return lines


def write_results(args, evaluations: dict, seconds: float) -> None:
    pairs = args.pairs or "''"
    command = (f"python -m scripts.experiments.filtering.eval_filtering --data {args.data} --pairs {pairs} "
               f"--ood {args.ood} --per-source {args.per_source} --ood-pairs {args.ood_pairs} --rate {args.rate} "
               f"--seed {args.seed}"
               + (f" --opusfilter-venv {args.opusfilter_venv}" if args.opusfilter_venv else "")
               + (f" --bicleaner-venv {args.bicleaner_venv}" if args.bicleaner_venv else "")
               + f" --out {args.out}" + (f" --json {args.json}" if args.json else "")
               + (f" --notes {args.notes}" if args.notes != "filtering_notes.md" else ""))
    target = "filter-eval-heldout" if args.notes == "filtering_heldout_notes.md" else "filter-eval"
    noise_notes = "below" if args.notes == "filtering_notes.md" else "in [results-filtering.md](results-filtering.md)"
    inside = {name: e for name, e in evaluations.items() if e["in_distribution"]}
    outside = {name: e for name, e in evaluations.items() if not e["in_distribution"]}

    def corpora(group):
        return "; ".join(f"{e['title']}: {e['n']} pairs ("
                         + ", ".join(f"{n} {s}" for s, n in e["sources"].items()) + ")"
                         for e in group.values())

    def overall(group):
        names = list(dict.fromkeys(label for e in group.values() for label in e["results"]))
        table = ["| scorer | " + " | ".join(e["title"] for e in group.values()) + " |", "|---|" + "---|" * len(group)]
        for label in names:
            table.append(f"| {label} | " + " | ".join(fmt(e["results"][label]["auc"]) if label in e["results"] else "–"
                                                     for e in group.values()) + " |")
        return table

    lines = [
        "# Parallel-corpus filtering: a labelled benchmark on real corpora", "",
        f"Made by `make {target}` (= `{command}`), {seconds / 60:.1f} min in all on 2 cores.", "",
        *([f"In-distribution corpora (from `make data-parallel`, Debian packages only): {corpora(inside)}."]
          if inside else []),
        *([f"Out-of-distribution corpora (from `make data-parallel-ood`): {corpora(outside)}."] if outside else []),
        f"{args.rate:.0%} of each corpus is replaced by noise, equal shares of its kinds: the {len(KINDS)} "
        f"in-distribution kinds, and on the out-of-distribution corpora also the {len(OOD_KINDS)} kinds the learned "
        f"score never trains on (see *How the noise is made* {noise_notes}). AUC: ROC-AUC of clean pairs above "
        "noisy ones (1 = perfect, .5 = chance), overall and against each kind alone. P = R: precision (= recall) of "
        f"the lowest-scored {args.rate:.0%} taken as the noise. All ranking rows score every pair with hard rules off. "
        "In every table the best value of a column is bold, and a kcooc cell that some peer (any row not named "
        "kcooc) beats is marked †.", "",
        "## Headline: the learned score on every test set", "",
        "Worst kind: the kind the learned score (`kcooc learned (default)`) ranks worst; *left out*: the same when "
        "it is trained without the family of training noise closest to each kind (leave-one-family-out, see below), "
        "the out-of-distribution headline.", "",
        "| test set | pairs | AUC | worst kind | worst kind, its family left out | best peer overall | kinds where a "
        "peer beats the learned score |", "|---|---|---|---|---|---|---|",
    ]
    for e in evaluations.values():
        h = headline(e)
        mark = "" if e["in_distribution"] else " (held out)" if e["title"] in HELD_OUT_TITLES else " (OOD)"
        lines.append(f"| {e['title']}{mark} | {e['n']} | {fmt(h['auc'])} | "
                     f"{h['worst_kind']} | {h['worst_kind_lofo']} | {h['best_peer']} {fmt(h['best_peer_auc'])} | "
                     f"{len(h['kinds_a_peer_wins'])} of {len(e['names'])}"
                     + (": " + ", ".join(h["kinds_a_peer_wins"]) if h["kinds_a_peer_wins"] else "") + " |")
    lines += ["", "## Leave-one-family-out", "",
              "Each cell: the learned score's AUC on that kind when trained without the family of training noise in "
              "the second column (`learn.noise_kinds` = every kind of `noise.DEFAULT_NOISE_KINDS` outside it), and "
              "in brackets its AUC with every family.", "",
              "| kind | family left out | " + " | ".join(e["title"] for e in evaluations.values()) + " |",
              "|---|---|" + "---|" * len(evaluations)]
    for kind in KINDS + OOD_KINDS:
        cells = []
        for e in evaluations.values():
            left_out = lofo_cells(e).get(kind, float("nan"))
            cells.append("–" if kind not in e["names"] else f"{fmt(left_out)} ({fmt(e['results'][LEARNED][kind])})")
        lines.append(f"| `{kind}` | {CLOSEST_FAMILY[kind]} | " + " | ".join(cells) + " |")
    lines += ["", "Overall AUC of each leave-one-family-out run (every kind of the test set):", "",
              "| family left out | " + " | ".join(e["title"] for e in evaluations.values()) + " |",
              "|---|" + "---|" * len(evaluations)]
    for family in dict.fromkeys(NOISE_FAMILIES.values()):
        lines.append(f"| {family} | " + " | ".join(fmt(e["lofo"][family]["auc"]) if family in e["lofo"] else "–"
                                                  for e in evaluations.values()) + " |")
    found = {name: intervals(e, args.workdir) for name, e in evaluations.items()}
    lines += interval_section(evaluations, found)
    if inside:
        lines += ["", "## In distribution: overall ROC-AUC per language pair", "", *overall(inside)]
    if outside:
        lines += ["", "## Out of distribution: overall ROC-AUC per test set", "", *overall(outside)]
    for e in evaluations.values():
        counts = ", ".join(f"{k} {int((e['kind'] == i).sum())}" for i, k in enumerate(e["names"]))
        lines += ["", f"## {e['title']}{'' if e['in_distribution'] else ' (out of distribution)'}", "",
                  f"{int((e['kind'] >= 0).sum())} noisy pairs of {e['n']}: {counts}.", "",
                  *scorer_table(with_lofo(e), e["names"])]
        if e["pipelines"]:
            lines += ["", "Pipelines (hard rules on; a pair a rule dropped ranks below every scored pair). For "
                      "keep/drop rows P and R are those of the dropped pairs as the noise, and AUC is that of the "
                      "two-level score.", "",
                      "| pipeline | AUC | P | R | " + " | ".join(e["names"]) + " | seconds |",
                      "|---|---|---|---|" + "---|" * len(e["names"]) + "---|"]
            for label, r in e["pipelines"].items():
                lines.append(f"| {label} | {fmt(r['auc'])} | {fmt(r['precision'])} | {fmt(r['recall'])} | "
                             + " | ".join(fmt(r[k]) for k in e["names"]) + f" | {r['seconds']:.1f} |")
                if "rules" in r:
                    rr = r["rules"]
                    lines.append(f"| … its hard rules alone (keep/drop) | {fmt(rr['auc'])} | {fmt(rr['precision'])} | "
                                 f"{fmt(rr['recall'])} | " + " | ".join(fmt(rr[k]) for k in e["names"]) + " | |")
        if e["opus"]:
            o = e["opus"]
            lines += ["", f"OpusFilter filter run: {o['lines_per_second']:.0f} lines/s ({e['n']} pairs in "
                      f"{o['filter_seconds']:.1f} s, its generated filters: "
                      + ", ".join(next(iter(f)) for f in o["filters"])
                      + "); its classifier features: "
                      + ", ".join(f"{k} ({v['clean-direction']})" for k, v in o["features"].items()) + "."]
    write_report(args.out, lines, args.notes)
    if args.json:
        write_json(args.json, command, evaluations, seconds, found)
    print("\n".join(lines))


def write_json(path: str, command: str, evaluations: dict, seconds: float, found: dict) -> None:
    """Every number of the page but the seconds, rounded to 4 decimals, keys sorted: a file to diff between runs."""
    def rounded(row: dict) -> dict:
        return {k: ((None if v != v else round(v, 4)) if isinstance(v, float)
                    else rounded(v) if isinstance(v, dict) else v)
                for k, v in row.items() if k != "seconds"}
    sets = {}
    for name, e in evaluations.items():
        cells = lofo_cells(e)
        sets[e["title"]] = {
            "in_distribution": e["in_distribution"], "pairs": e["n"], "sources": e["sources"],
            "noise": {k: int((e["kind"] == i).sum()) for i, k in enumerate(e["names"])},
            "scorers": {label: rounded(row) for label, row in e["results"].items()},
            "pipelines": {label: rounded(row) for label, row in e["pipelines"].items()},
            "leave_one_family_out": {family: rounded(row) for family, row in e["lofo"].items()},
            "kinds_family_left_out": {k: {"family": CLOSEST_FAMILY[k], "auc": round(v, 4)} for k, v in cells.items()},
            "headline": rounded(headline(e)),
            "intervals": {part: [rounded(cell) for cell in listed] for part, listed in found[name].items()},
        }
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"command": command, "minutes": round(seconds / 60, 1), "sets": sets}, f, indent=1, sort_keys=True,
                  ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
