"""``kcooc phsic train|score|merge``: parse options, stream, write. The maths is in model.py."""

from __future__ import annotations

import hashlib

import click
import numpy as np

from ..cli.options import (
    KcoocGroupOfCommands,
    config_options,
    input_options,
    input_overrides,
    output_option,
    seed_option,
    sigma_option,
    work_dir_option,
)
from ..cli.runtime import LOG, guarded, load_config, progress, require, run_options, write_summary
from ..config import to_dict
from ..io.limits import display_name
from ..io.outputs import check_outputs
from ..io.writers import atomic_output
from ..timing import Timer
from .config import PhsicConfig

# The maths (scipy, numba) is imported where it is used, so that `--help` and option errors stay fast.

vectors_options = [
    click.option("--x-vectors", default=None,
                 help="Precomputed x vectors (.npy, one row per pair) instead of an encoder."),
    click.option("--y-vectors", default=None, help="Precomputed y vectors (.npy), with --x-vectors."),
]


def with_vectors(command):
    for decorator in reversed(vectors_options):
        command = decorator(command)
    return command


@click.group(cls=KcoocGroupOfCommands)
def phsic():
    """Pointwise HSIC co-occurrence scores of sentence pairs (Yokoi et al., 2018)."""


@phsic.command("train", old_options={"--spool-dir": "--work-dir"})
@config_options
@input_options
@output_option("Model file to write (.npz).", required=True)
@click.option("--kernel", type=click.Choice(["linear", "cos", "rbf", "laplacian", "poly"]), default=None,
              help="Kernel on both sides [config: kernel.name].")
@click.option("--rank", type=click.IntRange(min=1), default=None,
              help="Incomplete Cholesky rank d [config: kernel.rank].")
@sigma_option
@click.option("--encoder", type=click.Choice(["hashing", "fasttext", "vectors", "wordllama"]), default=None,
              help="Sentence encoder [config: encoder.name].")
@click.option("--encoder-model", default=None, help="fastText .bin or word2vec .vec file [config: encoder.model].")
@with_vectors
@work_dir_option
@seed_option()
@run_options
@guarded
def train_command(config_path, print_config, input_path, output, x_vectors, y_vectors, work_dir, quiet, summary_path,
                  **options):
    """Learn PHSIC from (x, y) pairs.

    \b
    Example:
      kcooc phsic train -c configs/dialogue.yaml -i data/dialogue/train.tsv -o runs/phsic.npz
      kcooc phsic train --kernel rbf --rank 100 --encoder hashing -i pairs.tsv.gz -o model.npz
    """
    cfg = load_config(PhsicConfig, config_path, {
        **input_overrides(options),
        "kernel.name": options.get("kernel"), "kernel.rank": options.get("rank"),
        "kernel.sigma": options.get("sigma"),
        "encoder.name": options.get("encoder"), "encoder.model": options.get("encoder_model"),
    }, print_config)
    require((x_vectors is None) == (y_vectors is None), "--x-vectors and --y-vectors go together")
    guard = check_outputs(output, summary_path, inputs=[input_path, x_vectors, y_vectors, config_path],
                          directories=[("--work-dir", work_dir, False)], lock_required=True)
    with guard, guard.scratch("phsic", work_dir) as scratch:
        train_model(cfg, input_path, output, x_vectors, y_vectors, scratch, quiet, summary_path)


def train_model(cfg: PhsicConfig, input_path, output, x_vectors, y_vectors, spool_dir, quiet, summary_path) -> None:
    from ..encoders import build_pair_encoders
    from ..pairs import encoded_pairs, open_pairs, vector_pairs
    from .model import PHSIC
    from .stream import train

    timer = Timer()
    kernel = {k: v for k, v in to_dict(cfg.kernel).items() if k not in ("name", "sample")}
    model = PHSIC(cfg.kernel.name, seed=cfg.seed, **kernel)
    reader, encoders = None, None
    if x_vectors:
        reader = open_pairs(input_path, cfg.input) if input_path != "-" else None
        blocks = vector_pairs(x_vectors, y_vectors, cfg.input.block_size, reader)
    else:
        reader = open_pairs(input_path, cfg.input)
        encoders = build_pair_encoders(to_dict(cfg.encoder), cfg.y_encoder and to_dict(cfg.y_encoder))
        blocks = encoded_pairs(reader, *encoders)
    with progress(quiet) as bar:
        def on_pass(name: str, total: int | None) -> None:  # rbf etc.: the second pass gets its own bar
            LOG.debug(f"train: {name}" + ("" if total is None else f" over {total:,} pairs"))
            bar.set_description(name, refresh=False)
            bar.reset(total=total)

        train(blocks, model, sample_size=cfg.kernel.sample, spool_dir=spool_dir, on_block=bar.update, on_pass=on_pass)
    data_hash = reader.sha256.hexdigest() if reader else vectors_hash(x_vectors, y_vectors)
    model.save(output, config=to_dict(cfg), data_sha256=data_hash,
               encoders=[e.spec() for e in encoders] if encoders else {"x_vectors": x_vectors, "y_vectors": y_vectors})
    write_summary(summary_path, {
        "command": "phsic train", "pairs": model.moments.n, "input": display_name(input_path),
        "read": reader.stats.as_dict() if reader else None, "hsic": model.hsic(), "output": output,
        "seconds": timer.seconds()})


def vectors_hash(*paths: str) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


@phsic.command("score")
@click.option("--model", "-m", "model_path", required=True, help="Model trained by `kcooc phsic train`.")
@input_options
@output_option("Where to write (path or - for stdout).", default="-", show_default=True)
@click.option("--score-only", is_flag=True, help="Write only the score column (same scores as with the echo).")
@click.option("--candidates", is_flag=True,
              help="Consecutive lines with the same x are one context's candidates: add a rank column (1 = best).")
@click.option("--encoder-model", default=None, help="Where the model's fastText/.vec file is now, if it moved.")
@with_vectors
@seed_option()
@run_options
@guarded
def score_command(model_path, input_path, output, score_only, candidates, encoder_model, x_vectors, y_vectors,
                  quiet, summary_path, **options):
    """Score (x, y) pairs: echo each line plus a PHSIC column, in input order.

    \b
    Example:
      kcooc phsic score -m runs/phsic.npz -i data/dialogue/test.tsv > scored.tsv
      kcooc phsic score -m runs/phsic.npz -i candidates.tsv --candidates -o ranked.tsv
    """
    from .model import load_phsic

    guard = check_outputs(output, summary_path, inputs=[model_path, input_path, x_vectors, y_vectors],
                          lock_required=True)
    header, model = load_phsic(model_path)
    cfg = load_config(PhsicConfig, None, {**_flatten(header["config"]), **input_overrides(options)})
    require((x_vectors is None) == (y_vectors is None), "--x-vectors and --y-vectors go together")
    require(not (candidates and x_vectors and input_path == "-"), "--candidates needs the input TSV to group contexts")
    with guard:
        score_pairs(header, model, cfg, input_path, output, score_only, candidates, encoder_model, x_vectors,
                    y_vectors, quiet, summary_path, model_path)


def score_pairs(header, model, cfg, input_path, output, score_only, candidates, encoder_model, x_vectors, y_vectors,
                quiet, summary_path, model_path) -> None:
    from ..encoders import build_pair_encoders
    from ..pairs import encoded_pairs, open_pairs, vector_pairs
    from .stream import format_scores, rank_candidates, score_blocks, write_scored

    timer = Timer()
    reader = None
    if x_vectors:
        reader = open_pairs(input_path, cfg.input) if input_path != "-" or not score_only else None
        blocks = vector_pairs(x_vectors, y_vectors, cfg.input.block_size, reader)
    else:
        require(isinstance(header["encoders"], list), f"{model_path} was trained on precomputed vectors: "
                "pass --x-vectors/--y-vectors")
        specs = [dict(spec, **({"model": encoder_model} if encoder_model and "model" in spec else {}))
                 for spec in header["encoders"]]
        reader = open_pairs(input_path, cfg.input)
        blocks = encoded_pairs(reader, *build_pair_encoders(*specs))
    n = 0
    with atomic_output(output) as out, progress(quiet) as bar:
        if candidates:
            for lines, scores, ranks in rank_candidates(score_blocks(blocks, model)):
                write_scored(out, lines, [format_scores(scores), [str(r) for r in ranks.tolist()]], score_only)
                n += len(lines)
                bar.update(len(lines))
        else:
            for block, scores in score_blocks(blocks, model):
                write_scored(out, block.lines, [format_scores(scores)], score_only)
                n += len(scores)
                bar.update(len(scores))
    write_summary(summary_path, {
        "command": "phsic score", "pairs": n, "input": display_name(input_path), "output": output,
        "read": reader.stats.as_dict() if reader else None, "seconds": timer.seconds()})


def _flatten(tree: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict) and key != "y_encoder":
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = value
    return flat


@phsic.command("merge")
@click.argument("models", nargs=-1, required=True)
@output_option("Merged model file (.npz).", required=True)
@run_options
@guarded
def merge_command(models, output, quiet, summary_path):
    """Merge models trained on shards of one corpus into the model of the whole corpus.

    The statistics (n, sum phi, sum psi, sum phi psi^T) add up exactly; the shards must share
    the encoder and kernel (for data-space kernels, the same pivots).

    \b
    Example:
      kcooc phsic merge shard-*.npz -o model.npz
    """
    from .model import PHSIC, load_phsic
    from .moments import CrossMoments

    guard = check_outputs(output, summary_path, inputs=models)
    with guard:
        first_header, first = load_phsic(models[0])
        first_arrays = first.state()[1]
        moments = None
        hashes = []
        for path in models:
            header, model = load_phsic(path) if path != models[0] else (first_header, first)
            arrays = model.state()[1]
            same = (header["encoders"] == first_header["encoders"]
                    and {k: v for k, v in header["model"].items() if k != "n"}
                    == {k: v for k, v in first_header["model"].items() if k != "n"}
                    and all(np.array_equal(arrays[k], first_arrays[k])
                            for k in arrays if k.endswith(("pivots", "lower"))))
            require(same, f"{path}: encoder, kernel or pivots differ from {models[0]}; only shards of one setup merge")
            shard = CrossMoments(header["model"]["n"], arrays["sum_x"], arrays["sum_y"], arrays["sum_xy"])
            moments = shard if moments is None else moments.merge(shard)
            hashes.append(str(header.get("data_sha256")))
        merged = PHSIC.from_state({**first_header["model"], "n": moments.n},
                                  {**first_arrays, "sum_x": moments.sum_x, "sum_y": moments.sum_y,
                                   "sum_xy": moments.sum_xy})
        kept = {k: v for k, v in first_header.items() if k not in ("kind", "format_version", "kcooc_version", "model")}
        merged.save(output, **{**kept, "merged_from": list(models),
                               "data_sha256": hashlib.sha256("".join(hashes).encode()).hexdigest()})
        LOG.info(f"merged {len(models)} models: {moments.n:,} pairs")
        write_summary(summary_path, {"command": "phsic merge", "models": list(models), "pairs": moments.n,
                                     "output": output})
