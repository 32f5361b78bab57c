"""``kcooc ks align``: read objects, build kernels, run a method (align.py, mcca.py, convex.py), write the matching."""

from __future__ import annotations

import contextlib
import os

import click
import numpy as np

from ..cli.options import KcoocGroupOfCommands, config_options, jobs_option, output_option, seed_option
from ..cli.runtime import LOG, guarded, load_config, require, run_options, write_summary
from ..engine import make_engine
from ..errors import InputError
from ..io.outputs import check_outputs
from ..io.readers import read_text, text_lines
from ..io.writers import atomic_output
from ..timing import Timer
from .config import KsConfig

# The maths (scipy, scikit-learn) is imported where it is used, so that `--help` and option errors stay fast.


def read_objects(path: str) -> tuple[list[str], list[str]]:
    """(ids, texts): a directory's files (id = file name, sorted) or a file's lines (id = line number)."""
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if os.path.isfile(os.path.join(path, n)))
        return names, [read_text(os.path.join(path, name)) for name in names]
    texts = [line for _, line in text_lines(path)]
    return [str(i) for i in range(1, len(texts) + 1)], texts


def read_pairs(path: str, source_ids: list[str], target_ids: list[str]) -> dict[int, int]:
    """source_id<TAB>target_id lines (more fields, such as ks align's confidence, are read past) -> {source
    index: target index}; a source or a target aligned twice is refused (the same pair again is not)."""
    source_index = {s: i for i, s in enumerate(source_ids)}
    target_index = {t: i for i, t in enumerate(target_ids)}
    pairs = {}
    for lineno, line in text_lines(path):
        fields = line.split("\t")
        if len(fields) < 2 or fields[0] not in source_index or fields[1] not in target_index:
            raise InputError(f"{path}:{lineno}: expected source_id<TAB>target_id of known objects")
        source, target = source_index[fields[0]], target_index[fields[1]]
        if pairs.setdefault(source, target) != target:
            raise InputError(f"{path}:{lineno}: source {fields[0]} appears twice")
    if len(set(pairs.values())) != len(pairs):
        raise InputError(f"{path}: a target appears twice")
    return pairs


def kernels(cfg: KsConfig, source: list[str], target: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from .features import char_ngram_vectors, linear_kernel, load_kernel, romanised, skeleton, tfidf_vectors

    f = cfg.features
    if f.kind == "kernel":
        require(f.source_kernel and f.target_kernel,
                "features.kind kernel needs features.source_kernel and target_kernel")
        return load_kernel(f.source_kernel, len(source)), load_kernel(f.target_kernel, len(target))
    if f.kind == "chars":
        if f.skeleton:
            romanised(["a"])  # a clear error when anyascii is missing
            source, target = [skeleton(t) for t in source], [skeleton(t) for t in target]
        elif f.romanise:
            target = romanised(target)
        return tuple(linear_kernel(char_ngram_vectors(texts, f.ngram_min, f.ngram_max, f.weighting, f.normalise))
                     for texts in (source, target))
    return (linear_kernel(tfidf_vectors(source, f.source_language, f.max_df, f.min_df)),
            linear_kernel(tfidf_vectors(target, f.target_language, f.max_df, f.min_df)))


def gold_versus_found(K: np.ndarray, L: np.ndarray, gold: dict[int, int], match: np.ndarray) -> dict[str, float]:
    """The reference objective (align.reference_kernels) of the true matching and of the found one,
    both over the gold sources only: if the truth scores higher the search stalled; if lower the
    kernels do not single out the truth. Two oracle counts from the truth's own gradient K pi L:
    ``gold_fixed_point``, gold pairs one LAP step from the truth keeps (all of them: the truth is a
    fixed point of every KS iteration), and ``gold_nearest``, sources whose best-scoring target in
    that gradient is their partner (how well a row singles out its partner)."""
    from .align import reference_kernels
    from .sorting import assign, objective, relaxed_rows

    Kr, Lr = reference_kernels(K, L)
    rows = np.fromiter(gold, dtype=np.int64, count=len(gold))
    truth, found = np.full(match.size, -1), np.full(match.size, -1)
    truth[rows] = [gold[r] for r in rows]
    found[rows] = match[rows]
    G = Kr @ relaxed_rows(Lr, truth, "zero")
    return {"gold_objective": objective(Kr, Lr, truth), "found_objective_on_gold_sources": objective(Kr, Lr, found),
            "gold_fixed_point": int((assign(G)[0][rows] == truth[rows]).sum()),
            "gold_nearest": int((G[rows].argmax(axis=1) == truth[rows]).sum())}


@click.group(cls=KcoocGroupOfCommands)
def ks():
    """Kernelized sorting: match objects across two domains with no cross-domain similarity
    (Jagarlamudi et al., 2010)."""


@ks.command("align")
@config_options
@click.option("--source", required=True,
              help="Source objects: a file (one per line) or a directory (a document per file).")
@click.option("--target", required=True, help="Target objects, as --source.")
@click.option("--seeds", "seeds_path", default=None,
              help="Seed alignments: source_id<TAB>target_id per line (s-u, s-z, mcca; optional for convex).")
@click.option("--random-seeds", type=click.IntRange(min=1), default=None,
              help="Draw this many seed pairs from --gold with --seed (the paper used 10).")
@click.option("--gold", "gold_path", default=None, help="True alignments (as --seeds): report how many are recovered.")
@output_option("source_id<TAB>target_id<TAB>confidence lines.", default="-", show_default=True)
@click.option("--method", type=click.Choice(["ks", "p-smooth", "s-u", "s-z", "mcca", "convex"]), default=None,
              help="ks, p-smooth, s-u/s-z (p-smooth with seeds), mcca (seeds), convex [config: method].")
@jobs_option("processes")
@seed_option()
@run_options
@guarded
def align_command(config_path, print_config, source, target, seeds_path, random_seeds, gold_path, output, method, jobs,
                  seed, quiet, summary_path):
    """Align source and target objects; with --gold, count the recovered pairs.

    \b
    Example:
      kcooc ks align -c configs/ks-docs.yaml --source en/ --target es/ --seeds seeds.tsv -o alignment.tsv
      kcooc ks align -c configs/ks-names.yaml --source en.txt --target ar.txt --gold gold.tsv --random-seeds 10
    """
    from .estimator import SEEDED, SWEEPS, UNSEEDED, KernelizedSorting

    cfg = load_config(KsConfig, config_path, {"method": method, "seed": seed}, print_config)
    guard = check_outputs(output, summary_path, inputs=[source, target, seeds_path, gold_path, config_path,
                                                        cfg.features.source_kernel, cfg.features.target_kernel])
    timer = Timer()
    with guard:
        source_ids, source_texts = read_objects(source)
        target_ids, target_texts = read_objects(target)
        require(len(source_ids) >= 2 and len(target_ids) >= 2,
                f"need at least two objects on each side: {source} has {len(source_ids)}, {target} {len(target_ids)}")
        gold = read_pairs(gold_path, source_ids, target_ids) if gold_path else None
        seeds = read_pairs(seeds_path, source_ids, target_ids) if seeds_path else {}
        if random_seeds:
            require(gold is not None, "--random-seeds draws from --gold")
            rng = np.random.default_rng(cfg.seed)
            drawn = rng.choice(sorted(gold), size=min(random_seeds, len(gold)), replace=False)
            seeds.update({int(s): gold[int(s)] for s in drawn})
        require(cfg.method not in SEEDED or seeds,
                f"method {cfg.method} needs seed alignments (--seeds or --random-seeds)")
        require(cfg.method not in UNSEEDED or not seeds, f"method {cfg.method} does not use seed alignments; use s-u, "
                "s-z, mcca or convex with --seeds/--random-seeds, or drop them")
        K, L = kernels(cfg, source_texts, target_texts)
        summary = {"command": "ks align", "method": cfg.method, "sources": len(source_ids), "targets": len(target_ids),
                   "seeds": len(seeds)}
        sorter = KernelizedSorting(cfg.method, p_values=cfg.p_values(), delta=cfg.delta, max_iter=cfg.max_iter,
                                   step=cfg.ks_step, convex_iter=cfg.convex_iter, mcca_dims=cfg.mcca_dims,
                                   mcca_reg=cfg.mcca_reg)
        with contextlib.ExitStack() as stack:  # the p sweep's processes keep their files in the run's scratch
            engine = (stack.enter_context(make_engine("local", jobs, work_dir=stack.enter_context(guard.scratch("ks"))))
                      if cfg.method in SWEEPS else None)
            trace = sorter.fit(K, L, seeds, engine).trace_
        if sorter.p_ is not None:
            summary.update(p=sorter.p_, objective_per_p=[[p, round(v, 6)] for p, v in sorter.objective_per_p_])
        matched = np.flatnonzero(trace.match >= 0)
        with atomic_output(output) as out:
            out.writelines(f"{source_ids[i]}\t{target_ids[trace.match[i]]}\t{trace.confidence[i]:.6g}\n"
                           for i in matched)
        summary.update(matched=int(matched.size), objective=trace.objective, objective_history=trace.history,
                       seconds=timer.seconds())
        if gold is not None:
            summary["recovered"] = sum(int(trace.match[s] == t) for s, t in gold.items())
            summary["recovered_seeds"] = sum(int(gold.get(s) == t) for s, t in seeds.items())
            summary["gold"] = len(gold)
            summary.update(gold_versus_found(K, L, gold, trace.match))
            LOG.info(f"recovered {summary['recovered']} of {len(gold)} gold pairs ({cfg.method}; "
                     f"{summary['recovered_seeds']} of them were given as seeds)")
        write_summary(summary_path, summary)
