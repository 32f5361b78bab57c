"""``kcooc ca embed|eval``: count, decompose, write vectors; score them on word-similarity sets."""

from __future__ import annotations

import hashlib
import math
import os
from typing import TYPE_CHECKING

import click
import numpy as np

from ..cli.options import (
    KcoocGroupOfCommands,
    config_options,
    input_option,
    output_option,
    report_option,
    seed_option,
)
from ..cli.runtime import LOG, guarded, load_config, progress, require, run_options, write_summary
from ..config import to_dict
from ..errors import InputError, raise_if_signalled
from ..io.compression import COMPRESSED_SUFFIXES
from ..io.limits import display_name, max_line_bytes
from ..io.outputs import check_outputs
from ..io.readers import after_last_space, rereadable_input, text_lines
from ..io.writers import atomic_output
from ..timing import Timer
from .config import CaConfig

# The maths (scipy) is imported where it is used, so that `--help` and option errors stay fast.
if TYPE_CHECKING:
    from .counting import Vocabulary

BENCHMARKS = {"ws353-sim": "ws353_similarity.txt", "ws353-rel": "ws353_relatedness.txt", "ws353": "wordsim353.txt",
              "men": "men.txt", "mturk": "mturk.txt", "rw": "rareword.txt", "simlex": "simlex999.txt",
              "rg65": "rg65.txt"}


@click.group(cls=KcoocGroupOfCommands)
def ca():
    """Correspondence-analysis word vectors (Niitsuma), by a delayed sparse randomized SVD."""


@ca.command("embed", old_options={"--corpus": "--input"})
@config_options
@input_option("Corpus: a text file (.gz/.bz2/.xz/.zst, or - for stdin); see --lowercase.", required=True)
@output_option("Vectors file (.npz: vocab, vectors, singular values, config).", required=True)
@click.option("--export-w2v", default=None, help="Also write the vectors in the word2vec text format.")
@report_option("Also write one self-contained HTML page of the run (.html: the table's size and non-zeros, time per "
               "step, the singular values and the share of the total inertia each captures, the SVD's residuals per "
               "component and per power iteration; SCA: the supervised pairs); no request leaves the file.")
@click.option("--method", type=click.Choice(["ca", "ppmi"]), default=None,
              help="ca, or ppmi: PPMI-SVD (Levy et al. 2015), a reference that is not CA [config: method].")
@click.option("--table", type=click.Choice(["flat", "skip", "cut"]), default=None,
              help="Contingency table kind: flat (context after the word), skip (either side), cut (offset counts "
                   "above independence only) [config: table].")
@click.option("--window", type=click.IntRange(min=0), default=None,
              help="Up to this many words between a word and its context [config: window].")
@click.option("--power", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="CA of N^power, the counts raised entry by entry, 0 < power <= 1 (1 = plain CA) [config: power].")
@click.option("--vectors", type=click.Choice(["row", "row+column"]), default=None,
              help="Word vectors, or word + context vectors [config: vectors].")
@click.option("--dims", type=click.IntRange(min=1), default=None, help="Dimensions of the vectors [config: dims].")
@click.option("--weight", type=float, default=None, help="Vectors U S^weight [config: weight].")
@click.option("--min-count", type=click.IntRange(min=1), default=None,
              help="Drop words seen fewer times [config: min_count].")
@click.option("--lowercase/--no-lowercase", default=None,
              help="Lower-case the text and split punctuation marks off words (default; text8-like text is unchanged), "
                   "or keep whitespace tokens as they are [config: lowercase].")
@click.option("--supervision", default=None,
              help="SCA: 'word word score' pairs, e.g. data/benchmarks/men.txt [config: supervision].")
@click.option("--power-iterations", type=click.IntRange(min=0), default=None,
              help="Randomized SVD power iterations; with --tol the most [config: power_iterations].")
@click.option("--tol", type=float, default=None,
              help="Stop the power iterations once every relative residual is below this [config: tol].")
@seed_option()
@run_options
@guarded
def embed_command(config_path, print_config, input_path, output, export_w2v, report_path, method, table, window, power,
                  vectors, dims, weight, min_count, lowercase, supervision, power_iterations, tol, seed, quiet,
                  summary_path):
    """Count a word x context table from a token stream and decompose it by CA (or PPMI-SVD).

    \b
    Example:
      kcooc ca embed -c configs/text8.yaml -i data/text8 -o runs/ca-flat.npz --export-w2v runs/ca-flat.txt
    """
    from ..wordvectors import write_word2vec_text
    from .corpus import token_chunks
    from .counting import MAX_WORD_CHARS, Vocabulary, contingency_table, offset_tables
    from .model import PPMISVD, CorrespondenceAnalysis

    cfg = load_config(CaConfig, config_path, {
        "method": method, "table": table, "window": window, "power": power, "vectors": vectors, "dims": dims,
        "weight": weight, "min_count": min_count, "lowercase": lowercase, "supervision": supervision,
        "power_iterations": power_iterations, "tol": tol, "seed": seed}, print_config)
    guard = check_outputs(output, export_w2v, report_path, summary_path,
                          inputs=[input_path, cfg.supervision, config_path])
    timer, seconds, history, sca = Timer(), {}, [], None
    with guard:
        with guard.scratch("ca") as scratch:
            # read twice (vocabulary, counts): a FIFO or stdin is copied once, cut as the reader cuts it
            path = rereadable_input(input_path, scratch, after_last_space, max_line_bytes())
            digest = hashlib.sha256()
            with reading_bar(path, "vocabulary", quiet) as bar:
                chunks = token_chunks(path, cfg.chunk_bytes,
                                      lambda block: (digest.update(block), bar.update(len(block))), cfg.lowercase)
                try:
                    vocabulary = Vocabulary.build(chunks, cfg.min_count, cfg.max_vocab)
                except InputError as exc:
                    raise InputError(f"{display_name(input_path)}: {exc}") from None
            if vocabulary.too_long:
                LOG.warning(f"{vocabulary.too_long} distinct tokens longer than {MAX_WORD_CHARS} characters left out "
                            "of the vocabulary")
            seconds["vocabulary"] = timer.seconds()
            lap = Timer()
            with reading_bar(path, "counting", quiet) as bar:
                ids = (vocabulary.ids(tokens) for tokens in
                       token_chunks(path, cfg.chunk_bytes, lambda block: bar.update(len(block)), cfg.lowercase))
                tables = offset_tables(ids, len(vocabulary.words), cfg.window, separate=cfg.table == "cut")
        N = contingency_table(tables, cfg.table, vocabulary.counts, cfg.threshold)
        del tables
        seconds["count"] = lap.seconds()
        lap = Timer()
        options = {"vectors": cfg.vectors, "oversample": cfg.oversample, "power_iterations": cfg.power_iterations,
                   "tol": cfg.tol, "seed": cfg.seed}
        with progress(quiet, unit="steps") as bar:
            bar.unit_scale = False
            bar.set_description_str("svd")
            bar.reset(total=cfg.power_iterations + 1)  # the sketch, then each power iteration

            def step(iteration, worst):
                history.append(worst)  # the largest relative residual after the sketch and each power iteration
                bar.set_postfix(residual=f"{worst:.3g}", refresh=False)
                bar.update()

            if cfg.method == "ppmi":
                model = PPMISVD(cfg.dims, cfg.weight, cfg.smoothing, **options).fit(N, step)
            else:
                sca = supervision_of(cfg, vocabulary) if cfg.supervision else None
                model = CorrespondenceAnalysis(cfg.dims, cfg.weight, cfg.power, **options).fit(
                    N, None if sca is None else sca[0], step)
        seconds["svd"] = lap.seconds()
        lap = Timer()
        residual = model.relative_residuals_
        convergence = {"power_iterations": model.power_iterations_, "tol": cfg.tol,
                       "converged": None if cfg.tol is None else bool(residual.max() <= cfg.tol),
                       "max_relative_residual": float(residual.max()),
                       "median_relative_residual": float(np.median(residual))}
        model.save(output, vocabulary.words, vocabulary.counts, config=to_dict(cfg), data_sha256=digest.hexdigest(),
                   nonzeros=int(N.nnz), convergence=convergence)
        if export_w2v:
            write_word2vec_text(export_w2v, vocabulary.words, model.vectors_)
        if report_path:
            write_report(report_path, cfg, model, input_path, output, vocabulary, N, sca,
                         {**seconds, "write the vectors": lap.seconds()}, history)
        seconds["total"] = timer.seconds()
        LOG.info(f"svd: {model.power_iterations_} power iterations, relative residual of the top {residual.size}: "
                 f"max {residual.max():.3g}, median {np.median(residual):.3g}"
                 + ("" if cfg.tol is None
                    else f" (tol {cfg.tol:g}: {'' if convergence['converged'] else 'not '}reached)"))
        write_summary(summary_path, {
            "command": "ca embed", "method": cfg.method, "input": display_name(input_path), "output": output,
            "vocabulary": len(vocabulary.words), "tokens_in_vocabulary": int(vocabulary.counts.sum()),
            "nonzeros": int(N.nnz), "total_inertia": model.total_inertia_,
            "explained_inertia": float((model.singular_values_**2).sum()), "convergence": convergence,
            "relative_residuals": residual.tolist(), "seconds": seconds})


def reading_bar(path: str, description: str, quiet: bool):
    """A progress bar over the bytes of ``path`` (its size is the total when it is not compressed)."""
    bar = progress(quiet, unit="B")
    bar.set_description_str(description)
    compressed = path.endswith(COMPRESSED_SUFFIXES)
    bar.reset(total=None if compressed or not os.path.isfile(path) else os.path.getsize(path))
    return bar


def supervision_of(cfg: CaConfig, vocabulary: Vocabulary):
    """S for SCA from the supervision file's pairs whose words are both in the vocabulary, those pairs (as
    word ids) and how many pairs the file has."""
    from .sca import supervision_matrix

    index = {w: i for i, w in enumerate(vocabulary.words)}
    read = read_benchmark(cfg.supervision, ".")
    pairs = [(index[a], index[b], score) for a, b, score in read if a in index and b in index]
    require(pairs, f"{cfg.supervision}: no pair has both words in the vocabulary")
    return supervision_matrix(pairs, len(vocabulary.words), cfg.supervision_weight), pairs, len(read)


def write_report(path: str, cfg: CaConfig, model, input_path: str, output: str, vocabulary: Vocabulary, N, sca,
                 seconds: dict, history: list[float]) -> None:
    """The --report page (report.py), written atomically: committed with the run's other outputs."""
    from .report import report_page

    with atomic_output(path) as out:
        out.write(report_page(cfg, model, input_name=display_name(input_path), output=output,
                              words=vocabulary.words, counts=vocabulary.counts, table_shape=N.shape,
                              nonzeros=N.nnz, seconds=seconds, history=history, sca=sca))


def benchmark_path(name: str, data_dir: str) -> str:
    """The file of a benchmark: ``name`` if it exists, else its file (or ``name``) in ``data_dir``."""
    return name if os.path.exists(name) else os.path.join(data_dir, BENCHMARKS.get(name, name))


def read_benchmark(name: str, data_dir: str) -> list[tuple[str, str, float]]:
    """``w1 w2 score`` lines (whitespace-separated; '#' comments) from a named set or a path."""
    path = benchmark_path(name, data_dir)
    if not os.path.exists(path):
        raise InputError(f"benchmark {name!r} not found (known: {', '.join(BENCHMARKS)}; `make data-ca` fetches them "
                         f"into {data_dir}), or pass a file")
    pairs = []
    for lineno, line in text_lines(path):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        try:
            pairs.append((fields[0].lower(), fields[1].lower(), float(fields[2])))
        except (IndexError, ValueError):
            raise InputError(f"{path}:{lineno}: expected 'word word score'") from None
        if not math.isfinite(pairs[-1][2]):
            raise InputError(f"{path}:{lineno}: the score must be a finite number")
    require(pairs, f"{path}: no 'word word score' lines")
    return pairs


@ca.command("eval")
@input_option("Vectors (.npz from ca embed, or word2vec text).", required=True)
@output_option("The results table (path or - for stdout).", default="-", show_default=True)
@click.option("--benchmark", "-b", default="ws353-sim,ws353-rel,men,mturk,rw,simlex", show_default=True,
              help="Comma-separated names or files of word-pair similarity sets.")
@click.option("--data-dir", default="data/benchmarks", show_default=True, help="Where named benchmarks are.")
@run_options
@guarded
def eval_command(input_path, output, benchmark, data_dir, quiet, summary_path):
    """Spearman's rho of cosine similarities with human scores, and the out-of-vocabulary ratio.

    \b
    Example:
      kcooc ca eval -i runs/ca-flat.npz -b ws353-sim,men,simlex
    """
    from .model import load_vectors, word_similarity

    names = [name.strip() for name in benchmark.split(",")]
    guard = check_outputs(output, summary_path, inputs=[input_path, *(benchmark_path(n, data_dir) for n in names)])
    with guard:
        words, vectors = load_vectors(input_path)
        require(len(words) > 0, f"{input_path}: no vectors")
        results = {}
        lines = ["benchmark\tspearman\tpairs\toov_ratio"]
        for name in benchmark.split(","):
            result = word_similarity(words, vectors, read_benchmark(name.strip(), data_dir))
            results[name.strip()] = result
            rho = "nan" if result["spearman"] is None else f"{result['spearman']:.3f}"
            lines.append(f"{name.strip()}\t{rho}\t{result['pairs']}\t{result['oov_ratio']:.3f}")
        with atomic_output(output) as out:
            out.writelines(line + "\n" for line in lines)
        write_summary(summary_path, {"command": "ca eval", "vectors": input_path, "results": results})


def read_table(path: str) -> tuple[list[str], list[str], np.ndarray]:
    """A TSV contingency table: a header of column labels (first cell ignored), then label + counts per row."""
    lines = [line.split("\t") for _, line in text_lines(path) if line.strip()]
    require(len(lines) >= 3 and len(lines[0]) >= 3, f"{path}: need a header and at least two rows and two columns")
    columns = lines[0][1:]
    try:
        counts = np.array([[float(v) for v in row[1:]] for row in lines[1:]])
    except ValueError:
        raise InputError(f"{path}: counts must be numbers") from None
    require(counts.shape[1] == len(columns) and (counts >= 0).all() and np.isfinite(counts).all(),
            f"{path}: every row needs {len(columns)} finite counts >= 0")
    return [row[0] for row in lines[1:]], columns, counts


@ca.command("plot")
@input_option("A TSV contingency table, or 'fisher' for Fisher's eye/hair colour data (paper Table 1). TSV: a "
              "header line of column labels (its first cell is ignored), then one line per row: its label and "
              "one count (>= 0) per column; at least two rows and two columns.",
              default="fisher", show_default=True)
@output_option("Image file; its extension picks the format: .png, .pdf or .svg.", required=True)
@click.option("--title", default=None, help="Plot title.")
@run_options
@guarded
def plot_command(input_path, output, title, quiet, summary_path):
    """The CA biplot: rows and columns in the first two principal dimensions, on axes of equal
    scale, labels moved apart so that none overlaps. Needs matplotlib: pip install 'kcooc[plot]'.

    \b
    Example:
      kcooc ca plot -o fisher.png
      kcooc ca plot -i contingency.tsv -o map.pdf
    """
    from .plot import FISHER, biplot, check_table, plot_format

    guard = check_outputs(output, summary_path, inputs=[input_path])
    plot_format(output)
    with guard:
        if input_path == "fisher":
            rows, columns, counts = FISHER["rows"], FISHER["columns"], np.array(FISHER["counts"], dtype=float)
            title = title or "Fisher's data: eye (rows) and hair (columns) colour"
        else:
            rows, columns, counts = read_table(input_path)
            try:
                counts = check_table(rows, columns, counts)
            except InputError as exc:
                raise InputError(f"{input_path}: {exc}") from None
        with atomic_output(output, binary=True) as out:
            inertia = biplot(rows, columns, counts, output, out, title or os.path.basename(input_path))
            raise_if_signalled()  # a SIGINT that matplotlib's import swallowed: no plot
        click.echo("principal inertias: " + ", ".join(f"{v:.4f}" for v in inertia))
        write_summary(summary_path, {"command": "ca plot", "input": input_path, "output": output,
                                     "principal_inertias": [float(v) for v in inertia]})
