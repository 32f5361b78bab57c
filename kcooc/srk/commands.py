"""``kcooc srk classify``: read labelled sentence pairs, build the kernel sum, cross-validate C, predict."""

from __future__ import annotations

import dataclasses
import json

import click
import numpy as np

from ..cli.options import Bounded, KcoocGroupOfCommands, config_options, jobs_option, output_option, seed_option
from ..cli.runtime import LOG, guarded, load_config, progress, require, run_options, write_summary
from ..config import to_dict
from ..errors import InputError
from ..io.limits import display_name
from ..io.outputs import check_outputs
from ..io.tsv import TsvReader
from ..io.writers import atomic_output
from ..threads import use_threads
from ..timing import Timer
from .config import SVM_C, SrkConfig

# The maths (numba, scipy, scikit-learn) is imported where it is used, so that `--help` and option
# errors stay fast.

LABELS = {"1": 1, "+1": 1, "0": 0, "-1": 0}
UNKNOWN = {"", "?"}


@dataclasses.dataclass
class Examples:
    labels: np.ndarray  # 1, 0, or -1 (unknown)
    pairs: list[tuple[list[str], list[str]]]
    groups: np.ndarray | None
    truncated: int


def read_examples(path: str, cfg: SrkConfig, labels_required: bool) -> Examples:
    """Labelled pairs of a TSV file; a bad label names its file and line."""
    from ..encoders import tokenize

    inp = cfg.input
    columns = [inp.label_col, inp.src_col, inp.tgt_col] + ([inp.qid_col] if inp.qid_col is not None else [])
    reader = TsvReader(path, columns, header=inp.header, on_error=inp.on_error, block_size=inp.block_size,
                       max_line_bytes=inp.max_line_bytes)
    labels, pairs, groups, truncated = [], [], [], 0
    try:
        for block in reader:
            for lineno, label, source, target, *qid in zip(block.linenos.tolist(), *block.columns):
                label = label.strip()
                if label not in LABELS and not (label in UNKNOWN and not labels_required):
                    raise InputError(f"{display_name(path)}:{lineno}: label {label!r} is not 1/0 or "
                                     f"+1/-1{'' if labels_required else ' (or ? for unknown)'}")
                labels.append(LABELS.get(label, -1))
                s, t = (tokenize(x, cfg.lowercase, cfg.strip_punctuation) for x in (source, target))
                truncated += (len(s) > cfg.max_tokens) + (len(t) > cfg.max_tokens)
                pairs.append((s[:cfg.max_tokens], t[:cfg.max_tokens]))
                groups.extend(qid)
    finally:
        reader.close()
    require(pairs, f"{display_name(path)}: no sentence pairs")
    return Examples(np.array(labels, np.int64), pairs, np.array(groups) if inp.qid_col is not None else None,
                    truncated)


def kernel_matrices(cfg: SrkConfig, train: Examples, test: Examples, cache_dir: str | None, quiet: bool):
    """(train x train, test x train) normalised kernel sums, and the seconds spent per term."""
    from .estimator import StringRewritingKernel

    kernel = StringRewritingKernel(cfg.kernels, wordnet=cfg.wordnet, tile_rows=cfg.tile_rows)
    with progress(quiet, unit="rows") as bar:
        bar.total = (len(train.pairs) + len(test.pairs)) * len(cfg.kernels)
        return kernel.train_test(train.pairs, test.pairs, cache_dir, bar.update)


@click.group(cls=KcoocGroupOfCommands)
def srk():
    """Type-enriched string rewriting kernels for sentence pairs (Gleize & Grau, 2015)."""


@srk.command("classify", old_options={"--c": "--svm-c"})
@config_options
@click.option("--train", "train_path", required=True, help="Labelled training pairs (TSV, .gz/.bz2/.xz/.zst).")
@click.option("--test", "test_path", required=True, help="Pairs to classify (same columns; label ? if unknown).")
@output_option("prediction<TAB>decision value per test pair, in input order.", default="-", show_default=True)
@click.option("--metrics", "metrics_path", default=None, help="Write test metrics (and the C search) as JSON here.")
@click.option("--cache-dir", default=None, help="Keep Gram tiles here: a rerun (or a killed run) resumes.")
@click.option("--svm-c", "fixed_c", type=Bounded(SVM_C, float), default=None,
              help="The SVM's C, instead of cross-validating it over svm.c_grid.")
@jobs_option("threads")
@click.option("--header/--no-header", default=None, help="First line names the columns [config: input.header].")
@seed_option()
@run_options
@guarded
def classify_command(config_path, print_config, train_path, test_path, output, metrics_path, cache_dir, fixed_c, jobs,
                     header, seed, quiet, summary_path):
    """Train an SVM on the kernel sum of the config and classify (or rank) the test pairs.

    \b
    Example:
      kcooc srk classify -c configs/srk-paraphrase.yaml --train train.tsv --test test.tsv -o pred.tsv \\
          --metrics metrics.json --cache-dir runs/srk-cache
    """
    import numba

    from ..metrics import classification_scores, grouped_ranking
    from .svm import fit, select_c

    cfg = load_config(SrkConfig, config_path, {"seed": seed, "input.header": header}, print_config)
    guard = check_outputs(output, metrics_path, summary_path, inputs=[train_path, test_path, config_path],
                          directories=[("--cache-dir", cache_dir, True)])
    use_threads(jobs)
    with guard:
        timer = Timer()
        train = read_examples(train_path, cfg, labels_required=True)
        test = read_examples(test_path, cfg, labels_required=False)
        gram_train, gram_test, term_seconds = kernel_matrices(cfg, train, test, cache_dir, quiet)
        gram_seconds = timer.seconds()
        ranking = cfg.input.qid_col is not None
        if fixed_c is None:
            selection = select_c(gram_train, train.labels, train.groups, cfg.svm.c_grid, cfg.svm.folds, cfg.seed,
                                 cfg.svm.class_weight)
            c, search = selection.c, {str(k): round(v, 6) for k, v in selection.scores.items()}
        else:
            c, search = fixed_c, {}
        model = fit(gram_train, train.labels, c, cfg.svm.class_weight)
        decision = model.decision_function(gram_test)
        predictions = (decision > 0).astype(int)
        with atomic_output(output) as out:
            out.writelines(f"{p}\t{d:.6g}\n" for p, d in zip(predictions, decision))
        metrics = {"C": c, "cv_objective": "mrr" if ranking else "f1", "cv_scores": search,
                   "train_pairs": len(train.pairs), "test_pairs": len(test.pairs)}
        known = test.labels >= 0
        if known.all():
            metrics.update(classification_scores(test.labels, predictions))
            if ranking:
                metrics.update(grouped_ranking(test.groups, test.labels, decision))
            shown = ", ".join(f"{k} {metrics[k]:.3f}" for k in (("map", "mrr") if ranking else ("accuracy", "f1")))
            LOG.info(f"test: {shown} (C={c:g})")
        if metrics_path:
            with atomic_output(metrics_path) as out:
                out.write(json.dumps(metrics, indent=1, sort_keys=True) + "\n")
        write_summary(summary_path, {"command": "srk classify", **metrics,
                                     "truncated_sentences": train.truncated + test.truncated,
                                     "seconds": timer.seconds(), "gram_seconds": gram_seconds,
                                     "term_seconds": term_seconds,
                                     "threads": numba.get_num_threads(), "config": to_dict(cfg)})
