"""Streaming TSV reading and atomic writing: the input/output contracts every command keeps."""

import bz2
import gzip
import lzma
import os
import signal
import threading

import pytest

from kcooc.errors import InputError, Terminated
from kcooc.io.readers import text_blocks
from kcooc.io.tsv import TsvReader
from kcooc.io.writers import atomic_output

from conftest import TRAIN


def rows(reader):
    return [list(zip(*b.columns)) for b in reader]


def flat(reader):
    return [row for block in rows(reader) for row in block]


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_columns_by_index_and_header_name(tmp_path):
    path = write(tmp_path, "h.tsv", "id\tsrc\ttgt\n1\thello\tbonjour\n2\tyes\toui\n".encode())
    assert flat(TsvReader(path, [2, 3])) == [("src", "tgt"), ("hello", "bonjour"), ("yes", "oui")]
    assert flat(TsvReader(path, ["tgt", "src"], header=True)) == [("bonjour", "hello"), ("oui", "yes")]
    assert flat(TsvReader(path, ["3", "1"], header=True)) == [("bonjour", "1"), ("oui", "2")]


def test_missing_columns_are_reported_before_any_work(tmp_path):
    path = write(tmp_path, "h.tsv", b"src\ttgt\na\tb\n")
    with pytest.raises(InputError, match="no column named 'target'"):
        TsvReader(path, ["src", "target"], header=True)
    with pytest.raises(InputError, match="column 5 does not exist; the input has 2"):
        TsvReader(path, [1, 5], header=True)
    with pytest.raises(InputError, match="no header"):
        TsvReader(path, ["src", "tgt"])
    with pytest.raises(InputError, match="column 3 does not exist"):
        list(TsvReader(path, [1, 3]))


def test_ragged_line_names_file_and_line(tmp_path):
    path = write(tmp_path, "r.tsv", b"a\tb\nc\td\ne\n\nf\tg\th\ni\tj\n")
    with pytest.raises(InputError, match=r"r\.tsv:3: expected 2 tab-separated fields, found 1"):
        flat(TsvReader(path, [1, 2]))
    reader = TsvReader(path, [1, 2], on_error="skip")
    assert flat(reader) == [("a", "b"), ("c", "d"), ("i", "j")]
    assert reader.stats.as_dict() == {"lines": 6, "rows": 3, "skipped": {"wrong_field_count": 3}}


def test_empty_line_is_malformed(tmp_path):
    path = write(tmp_path, "e.tsv", b"a\tb\n\nc\td\n")
    with pytest.raises(InputError, match=r"e\.tsv:2: .*empty line"):
        flat(TsvReader(path, [1, 2]))


def test_bad_utf8_names_line(tmp_path):
    path = write(tmp_path, "u.tsv", b"a\tb\nc\t\xff\xfe\nd\te\n")
    with pytest.raises(InputError, match=r"u\.tsv:2: invalid UTF-8"):
        flat(TsvReader(path, [1, 2]))
    reader = TsvReader(path, [1, 2], on_error="skip")
    assert flat(reader) == [("a", "b"), ("d", "e")]
    assert reader.stats.skipped == {"bad_utf8": 1}


def test_huge_line_is_malformed_not_fatal_with_skip(tmp_path):
    path = write(tmp_path, "big.tsv", b"a\tb\n" + b"x" * 5000 + b"\ty\nc\td\n")
    with pytest.raises(InputError, match=r"big\.tsv:2: line longer than 1000 bytes"):
        flat(TsvReader(path, [1, 2], max_line_bytes=1000))
    assert flat(TsvReader(path, [1, 2], max_line_bytes=1000, on_error="skip")) == [("a", "b"), ("c", "d")]
    assert len(flat(TsvReader(path, [1, 2]))) == 3


def test_crlf_and_missing_final_newline(tmp_path):
    path = write(tmp_path, "w.tsv", b"a\tb\r\nc\td")
    assert flat(TsvReader(path, [1, 2])) == [("a", "b"), ("c", "d")]


@pytest.mark.parametrize("suffix,module", [(".gz", gzip), (".bz2", bz2), (".xz", lzma)])
def test_compressed_inputs_are_read_transparently(tmp_path, suffix, module):
    data = open(TRAIN, "rb").read()
    path = write(tmp_path, "train.tsv" + suffix, module.compress(data))
    assert flat(TsvReader(path, [1, 2])) == flat(TsvReader(TRAIN, [1, 2]))


def test_truncated_gzip_is_a_clear_error(tmp_path):
    data = gzip.compress(open(TRAIN, "rb").read())
    path = write(tmp_path, "cut.tsv.gz", data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.tsv\.gz:\d+: truncated or corrupt input"):
        flat(TsvReader(path, [1, 2]))


def test_blocks_have_the_requested_size_and_hash_covers_all_bytes(tmp_path):
    import hashlib

    reader = TsvReader(TRAIN, [1, 2], block_size=300)
    sizes = [len(b.lines) for b in reader]
    assert sizes[:-1] == [300] * (len(sizes) - 1) and sum(sizes) == 2000
    assert reader.sha256.hexdigest() == hashlib.sha256(open(TRAIN, "rb").read()).hexdigest()


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot open"):
        TsvReader(str(tmp_path / "nope.tsv"), [1, 2])


def test_atomic_output_keeps_previous_file_on_failure(tmp_path):
    path = str(tmp_path / "out.tsv")
    with atomic_output(path) as out:
        out.write("old\n")
    with pytest.raises(RuntimeError):
        with atomic_output(path) as out:
            out.write("half")
            raise RuntimeError("crash")
    assert open(path).read() == "old\n"
    assert os.listdir(tmp_path) == ["out.tsv"]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
@pytest.mark.parametrize("signum,stopped", [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)],
                         ids=["SIGTERM", "SIGINT"])
def test_guard_commits_nothing_after_a_signal_a_library_swallowed(signum, stopped, tmp_path):
    """The run went on after its signal (a library caught the exception) to the end of its guard's block:
    the guard raises the signal's exception instead of renaming the new output over the previous one."""
    from kcooc.cli.runtime import signals_unwind
    from kcooc.io.outputs import check_outputs

    path = str(tmp_path / "out.tsv")
    with open(path, "w") as f:
        f.write("previous\n")
    with pytest.raises(KeyboardInterrupt) as ended, signals_unwind():
        with check_outputs(path):
            with atomic_output(path) as out:
                out.write("new\n")
            try:
                signal.raise_signal(signum)  # the handler raises here
            except BaseException:  # a library's ``except: pass``
                pass
    assert type(ended.value) is stopped
    assert open(path).read() == "previous\n"
    assert os.listdir(tmp_path) == ["out.tsv"]


def test_compressed_output_is_byte_identical_across_runs(tmp_path):
    paths = [str(tmp_path / f"{i}.tsv.gz") for i in range(2)]
    for path in paths:
        with atomic_output(path) as out:
            out.write("hello\tworld\n" * 100)
    assert open(paths[0], "rb").read() == open(paths[1], "rb").read()
    assert gzip.decompress(open(paths[0], "rb").read()) == b"hello\tworld\n" * 100


def test_output_to_a_symlink_writes_its_target(tmp_path):
    target = tmp_path / "real.tsv"
    target.write_text("old")
    link = tmp_path / "link.tsv"
    link.symlink_to(target)
    with atomic_output(str(link)) as out:
        out.write("new")
    assert link.is_symlink() and target.read_text() == "new"


def test_rows_carry_their_line_numbers_and_text_blocks_name_the_line(tmp_path):
    path = tmp_path / "mixed.tsv"
    path.write_bytes(b"a\tb\nbad\n\xff\tx\nc\td\n")
    blocks = list(TsvReader(str(path), [1, 2], on_error="skip"))
    assert [n for block in blocks for n in block.linenos.tolist()] == [1, 4]
    text = tmp_path / "corpus.txt"
    text.write_bytes(b"one two\nthree four\nfive \xff six\n")
    with pytest.raises(InputError, match=r"corpus.txt:3: invalid UTF-8"):
        list(text_blocks(str(text), 4))  # small chunks: the line count runs across them
    text.write_bytes(b"one two\nthree four\nfive six\n")
    assert [w for block in text_blocks(str(text), 4) for w in block.split()] == \
        "one two three four five six".split()


def naive_rows(data: bytes, n_fields: int, max_line_bytes: int):
    """The reader's contract line by line: (line number, text) of every well-formed line."""
    kept = []
    for number, raw in enumerate(data.split(b"\n")[: data.count(b"\n") + (not data.endswith(b"\n"))], start=1):
        try:
            text = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError:
            continue
        if len(raw) + 1 <= max_line_bytes + (not data.endswith(b"\n") and number > data.count(b"\n")) \
                and text.count("\t") == n_fields - 1:
            kept.append((number, text))
    return kept


@pytest.mark.parametrize("chunk", [5, 64, 1 << 20])
def test_chunked_reading_equals_line_by_line_on_malformed_input(tmp_path, chunk):
    """Chunks are cut at the last newline of every read (whole lines, any chunk size): rows, line
    numbers, skip counts, the hash and the first error's file:line are those of a line-by-line read."""
    import hashlib

    lines = [b"a\tb\n", b"c\td\r\n", b"\xff\tx\n", b"one\n", b"\n", b"e\tf\tg\n", b"h" * 40 + b"\ti\n", b"j\t\r\r\n",
             "ü\tñ\n".encode(), b"k\tl\r"]
    data = b"".join(lines[:-1] * 7) + lines[-1]  # 64 lines, the last one without a newline
    path = write(tmp_path, "in.tsv", data)
    reader = TsvReader(path, [1, 2], on_error="skip", block_size=3, max_line_bytes=30)
    reader.chunk_bytes = chunk
    got = [(n, line) for block in reader for n, line in zip(block.linenos.tolist(), block.lines)]
    assert got == naive_rows(data, 2, 30)
    assert reader.stats.lines == 64 and reader.stats.rows == len(got)
    assert sum(reader.stats.skipped.values()) == 64 - len(got)
    assert reader.sha256.hexdigest() == hashlib.sha256(data).hexdigest()
    failing = TsvReader(path, [1, 2], max_line_bytes=30)
    failing.chunk_bytes = chunk
    with pytest.raises(InputError, match=r"in.tsv:3: invalid UTF-8"):
        list(failing)


# -- zstd (.zst: the zstd extra) -------------------------------------------------------------------------
needs_zstd = pytest.mark.skipif(__import__("importlib").util.find_spec("zstandard") is None,
                                reason="zstandard is not installed (pip install 'kcooc[zstd]')")


def zstd_compress(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor(level=3).compress(data)


@needs_zstd
@pytest.mark.parametrize("name", ["train.tsv.zst", "train.tsv"])  # by suffix, and by magic bytes alone
def test_zstd_inputs_are_read_by_suffix_and_by_magic_bytes(tmp_path, name):
    data = open(TRAIN, "rb").read()
    half = len(data) // 2
    path = write(tmp_path, name, zstd_compress(data[:half]) + zstd_compress(data[half:]))  # two frames, as `cat`
    assert flat(TsvReader(path, [1, 2], block_size=77)) == flat(TsvReader(TRAIN, [1, 2]))
    assert TsvReader(path, [1, 2]).sha256.hexdigest() == TsvReader(TRAIN, [1, 2]).sha256.hexdigest()


@pytest.mark.parametrize("module", [gzip, bz2, lzma])
def test_compressed_inputs_without_their_suffix_are_read_by_magic_bytes(tmp_path, module):
    path = write(tmp_path, "train.data", module.compress(open(TRAIN, "rb").read()))
    assert flat(TsvReader(path, [1, 2])) == flat(TsvReader(TRAIN, [1, 2]))


@needs_zstd
@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_truncated_zstd_is_a_clear_error(tmp_path, cut):
    data = zstd_compress(open(TRAIN, "rb").read())
    path = write(tmp_path, "cut.tsv.zst", data[: int(len(data) * cut)])
    with pytest.raises(InputError, match=r"cut\.tsv\.zst:\d+: truncated or corrupt input"):
        flat(TsvReader(path, [1, 2]))


@needs_zstd
def test_zstd_output_is_byte_identical_across_runs_and_reads_back(tmp_path):
    paths = [str(tmp_path / f"{i}.tsv.zst") for i in range(2)]
    for path in paths:
        with atomic_output(path) as out:
            out.write("hello\tworld\n" * 100)
    assert open(paths[0], "rb").read() == open(paths[1], "rb").read()
    assert flat(TsvReader(paths[0], [1, 2])) == [("hello", "world")] * 100


def test_missing_zstandard_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "zstandard", None)  # import fails as if it were not installed
    path = write(tmp_path, "in.tsv", b"\x28\xb5\x2f\xfd" + b"\0" * 20)
    with pytest.raises(InputError, match=r"pip install 'kcooc\[zstd\]'"):
        TsvReader(path, [1, 2])
    with pytest.raises(InputError, match=r"pip install 'kcooc\[zstd\]'"):
        from kcooc.io.outputs import check_outputs

        check_outputs(str(tmp_path / "out.tsv.zst"))
