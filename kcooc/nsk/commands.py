"""``kcooc nsk train|classify``: learn sigma on labelled structures, classify by k-NN. The maths is in
kernels.py (kernels), hashing.py (k-NN search) and learn.py (Algorithm 1)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import click
import numpy as np

from ..cli.options import (
    Bounded,
    KcoocGroupOfCommands,
    config_options,
    input_option,
    jobs_option,
    output_option,
    seed_option,
)
from ..cli.runtime import LOG, guarded, load_config, progress, run_options, write_summary
from ..config import from_dict, range_of, to_dict
from ..io.outputs import check_outputs
from ..io.writers import atomic_output
from ..threads import use_threads
from ..timing import Timer
from .config import NskConfig
from .structures import Labels, Structures, read_structures

# The maths (numba, scipy) is imported where it is used, so that `--help` and option errors stay fast.
if TYPE_CHECKING:
    from .classifier import NSKClassifier
    from .model import ConvolutionKernel


def make_kernel(cfg: NskConfig, nodes: Labels, sigma: np.ndarray | None = None) -> ConvolutionKernel:
    from .model import ConvolutionKernel, node_vectors

    k = cfg.kernel
    vectors = node_vectors(nodes.names, k.vectors) if k.node_kernel == "vectors" else None
    return ConvolutionKernel(k.kind, k.decay, k.max_length, sigma, vectors, k.gamma)


def classifier(cfg: NskConfig, kernel: ConvolutionKernel, learn: bool) -> NSKClassifier:
    from .classifier import NSKClassifier

    h, a = cfg.hashing, cfg.learn
    return NSKClassifier(kernel, k=cfg.k, hashing=h.method, bits=h.bits, reference_size=h.reference_size,
                         subset_size=h.subset_size, learn=learn, label_share=a.label_share, beta=a.beta, alpha=a.alpha,
                         k_graph=a.k_graph, iterations=a.iterations, seed=cfg.seed)


def warn_truncated(data: Structures, max_items: int) -> None:
    if data.truncated:
        LOG.warning(f"{data.truncated} structures cut to their first {max_items} items (max_items)")


@click.group(cls=KcoocGroupOfCommands)
def nsk():
    """Nonstationary convolution kernels with k-NN on paths and trees (Garg et al., 2018)."""


@nsk.command("train")
@config_options
@input_option("Labelled structures, JSON lines (.gz/.bz2/.xz/.zst).", required=True)
@output_option("Model file to write (.npz).", required=True)
@click.option("--hashing", type=click.Choice(["exact", "random-knn", "klsh"]), default=None,
              help="k-NN search of the learning graph: exact, random k-NN or kernelized LSH [config: hashing.method].")
@click.option("--no-learn", is_flag=True, help="Keep sigma = 1 (the stationary kernel) [config: learn.enabled].")
@jobs_option("threads")
@seed_option()
@run_options
@guarded
def train_command(config_path, print_config, input_path, output, hashing, no_learn, jobs, seed, quiet, summary_path):
    """Learn sigma (Algorithm 1) and save the model: training structures, sigma, the zeroed labels.

    \b
    Example:
      kcooc nsk train -c configs/nsk-brown.yaml -i train.jsonl -o model.npz --summary train.json
    """
    import numba

    from .model import SavedModel

    cfg = load_config(NskConfig, config_path, {"hashing.method": hashing, "seed": seed,
                                                "learn.enabled": False if no_learn else None}, print_config)
    guard = check_outputs(output, summary_path, inputs=[input_path, config_path])
    with guard:
        use_threads(jobs)
        timer = Timer()
        edges, nodes = Labels(), Labels()
        digest = hashlib.sha256()
        data = read_structures(input_path, edges, nodes, cfg.kernel.kind, digest=digest, max_items=cfg.max_items)
        warn_truncated(data, cfg.max_items)
        learner = classifier(cfg, make_kernel(cfg, nodes), learn=cfg.learn.enabled)
        to_learn = learner.labels_to_learn(data, len(edges))
        with progress(quiet or not to_learn, unit="labels") as bar:
            bar.unit_scale = False
            bar.reset(total=cfg.learn.iterations * len(to_learn))

            def on_label(label, loss_off, loss_on, value):
                bar.set_postfix_str(edges.names[label], refresh=False)
                bar.update()
                LOG.info(f"{edges.names[label]}: loss with sigma 0 {loss_off:.4g}, with 1 {loss_on:.4g} "
                         f"-> sigma {value:g}")

            learned = learner.fit(data, len(edges), on_label)
        sigma, losses, evaluations = learned.sigma_, learned.losses_, learned.evaluations_
        zeroed = [edges.names[e] for e in to_learn if sigma[e] == 0]
        SavedModel(data, sigma, edges, nodes).save(
            output, config=to_dict(cfg), learned_labels=[edges.names[e] for e in to_learn], zeroed_labels=zeroed,
            data_sha256=digest.hexdigest())
        LOG.info(f"{len(zeroed)} of {len(to_learn)} learned labels skipped (sigma = 0): {' '.join(zeroed)}")
        write_summary(summary_path, {"command": "nsk train", "structures": len(data),
                                     "positives": int(data.labels.sum()), "edge_labels": len(edges),
                                     "learned_labels": len(to_learn), "zeroed_labels": zeroed,
                                     "losses": [[edges.names[e], l0, l1] for e, l0, l1 in losses],
                                     "kernel_evaluations": evaluations, "truncated_structures": data.truncated,
                                     "seconds": timer.seconds(),
                                     "threads": numba.get_num_threads()})


@nsk.command("classify", old_options={"--k": "--neighbours"})
@click.option("--model", "-m", "model_path", required=True, help="Model from `kcooc nsk train`.")
@input_option("Structures to classify, JSON lines (label optional).", required=True)
@output_option("prediction<TAB>share of positive neighbours, one line per input structure.", default="-",
               show_default=True)
@click.option("--metrics", "metrics_path", default=None, help="Write F1 / precision / recall (positive class) here.")
@click.option("--neighbours", "k", type=Bounded(range_of(NskConfig, "k")), default=None,
              help="Voting neighbours, k of k-NN [model config: k].")
@click.option("--hashing", type=click.Choice(["exact", "random-knn", "klsh"]), default=None,
              help="k-NN search: exact, random k-NN or kernelized LSH [model config: hashing.method].")
@click.option("--stationary", is_flag=True, help="Ignore the learned sigma (the path/tree kernel baseline).")
@jobs_option("threads")
@seed_option()
@run_options
@guarded
def classify_command(model_path, input_path, output, metrics_path, k, hashing, stationary, jobs, seed, quiet,
                     summary_path):
    """Classify structures by majority vote of their k nearest training structures.

    \b
    Example:
      kcooc nsk classify -m model.npz -i test.jsonl -o pred.tsv --metrics metrics.json
    """
    import numba

    from ..metrics import classification_scores
    from .model import load_nsk

    guard = check_outputs(output, metrics_path, summary_path, inputs=[model_path, input_path])
    with guard:
        header, saved = load_nsk(model_path)
        cfg = from_dict(NskConfig, header["config"])
        cfg.k = k or cfg.k
        cfg.hashing.method = hashing or cfg.hashing.method
        cfg.seed = cfg.seed if seed is None else seed
        use_threads(jobs)
        timer = Timer()
        edges, nodes, train = saved.edges, saved.nodes, saved.train
        queries = read_structures(input_path, edges, nodes, header["structure_kind"], labels_required=False,
                                  max_items=cfg.max_items)
        warn_truncated(queries, cfg.max_items)
        kernel = make_kernel(cfg, nodes, None if stationary else saved.sigma)
        predictions, share = classifier(cfg, kernel, learn=False).fit(train).vote(queries)
        with atomic_output(output) as out:
            out.writelines(f"{p}\t{s:.4f}\n" for p, s in zip(predictions, share))
        metrics = {"structures": len(queries), "k": cfg.k, "hashing": cfg.hashing.method, "stationary": stationary,
                   "kernel_evaluations": kernel.evaluations, "seconds": timer.seconds()}
        if (queries.labels >= 0).all():
            metrics.update(classification_scores(queries.labels, predictions))
            LOG.info(f"F1 {metrics['f1']:.3f} (P {metrics['precision']:.3f}, R {metrics['recall']:.3f}); "
                     f"{kernel.evaluations:,} kernel evaluations")
        if metrics_path:
            with atomic_output(metrics_path) as out:
                out.write(json.dumps(metrics, indent=1, sort_keys=True) + "\n")
        write_summary(summary_path, {"command": "nsk classify", **metrics, "truncated_structures": queries.truncated,
                                     "threads": numba.get_num_threads()})

