"""Issue 26, classes 1-4, 7 and 9: every command against a hostile user (signals, links, odd files and places).

One table per class, one row per command it applies to. Every row checks the exit code and, as the
contract suite does, that no file was created, removed or changed (so no new file, no debris, the
inputs and a previous output byte for byte as before) and that no process of the run is left. The
signal and kill rows run the real command (``python -m kcooc``): it reads a FIFO that nobody writes,
so it waits, holding its lock (and scratch directory), until the signal comes. The catalogue is
docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

import numpy as np
import pytest
import test_contract
from test_contract import COMMANDS, FILTER_CONFIG, Env, _alive, _children, invoke

from conftest import DATA, needs_plot

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev/zero, /dev/full, /proc")

# the option whose file each command reads inside its run (after taking the lock): a FIFO there blocks it
READS = {"phsic train": "-i", "phsic score": "-i", "phsic merge": "MODEL", "filter-parallel": "-i", "ca embed": "-i",
         "ca eval": "-b", "ca plot": "-i", "srk classify": "--train", "nsk train": "-i", "nsk classify": "-i",
         "ks align": "--source"}
SCRATCH = {"phsic train": ".kcooc-phsic-", "filter-parallel": ".kcooc-filter-"}  # alive at the summary
NAMES = sorted(READS)
# the runs that reach their last step: ca plot needs its extra for that
RUNS = [pytest.param(name, marks=needs_plot) if name == "ca plot" else name for name in NAMES]


@pytest.fixture(scope="module", name="inputs")
def shared_inputs(tmp_path_factory) -> str:
    """The contract suite's small valid inputs (and models) for every command."""
    return test_contract.inputs.__wrapped__(tmp_path_factory)


# -- helpers ----------------------------------------------------------------------------------------------


def snapshot(root) -> dict:
    """Every entry under root: path -> bytes' digest, "dir", "fifo" or "link:target" (FIFOs are not opened)."""
    import hashlib

    state = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs:
            state[os.path.join(directory, name)] = "dir"
        for name in files:
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                state[path] = "link:" + os.readlink(path)
            elif not stat.S_ISREG(mode):
                state[path] = "special"
            else:
                with open(path, "rb") as f:
                    state[path] = hashlib.sha256(f.read()).hexdigest()
    return state


def env_for(name: str, tmp_path, shared: str) -> Env:
    env = Env(COMMANDS[name], tmp_path, shared)
    env.extra.append("-q")  # on stderr only the one line of an error
    (env.out / os.path.basename(env.options[env.cmd.output])).write_text("previous output\n")
    return env


def set_read(env: Env, name: str, path: str) -> None:
    if READS[name] == "MODEL":
        env.positional[0] = path
    else:
        env.options[READS[name]] = path


def output_path(env: Env) -> str:
    return env.options[env.cmd.output]


PYTHON_M = ["-m", "kcooc"]
SCRIPT = ["-c", "import sys; from kcooc.__main__ import main; sys.argv[0] = 'kcooc'; sys.exit(main())"]  # pip's


def start(args: list, launcher: list = PYTHON_M, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *launcher, *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, **kwargs)


def wait_for(condition, what: str, timeout: float = 120, interval: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(interval)


def wait_while_running(process: subprocess.Popen, condition, what: str, interval: float = 0.05) -> None:
    """Wait for ``condition`` while the run goes on; a run that ended first, or a failed wait, kills it
    (a failed test leaves no process behind)."""
    try:
        wait_for(lambda: condition() or process.poll() is not None, what, interval=interval)
        assert process.poll() is None, process.stderr.read().decode()
    except BaseException:
        process.kill()
        raise


def signalled(process: subprocess.Popen, signum: int) -> int:
    """Send ``signum``, wait up to 30 s for the run to end (then kill it), and return its exit code."""
    process.send_signal(signum)
    try:
        process.wait(timeout=30)
    finally:
        process.kill()
    return process.returncode


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        children = _children(todo.pop())
        found.update(children)
        todo += children
    return found


def assert_gone(pids, timeout: float = 30) -> None:
    wait_for(lambda: not any(_alive(pid) for pid in pids), f"processes {sorted(pids)} to end", timeout)


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum`` (the SigCgt mask in /proc)."""
    with open(f"/proc/{pid}/status") as f:
        mask = next(line for line in f if line.startswith("SigCgt:")).split()[1]
    return bool(int(mask, 16) >> (signum - 1) & 1)


def loaded(pid: int, library: str) -> bool:
    """Whether process ``pid`` has mapped a shared library whose path contains ``library``."""
    with open(f"/proc/{pid}/maps") as f:
        return library in f.read()


def one_line(stderr: str | bytes) -> str:
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def fails_leaving_nothing(env: Env, tmp_path, code: int) -> str:
    """Run ``env``'s command, check it exits with ``code`` and leaves ``tmp_path`` as it was; its one-line message."""
    before = snapshot(tmp_path)
    result = invoke(env.cmd.argv(env))
    assert result.exit_code == code, result.stderr
    assert snapshot(tmp_path) == before
    return one_line(result.stderr)


def blocked_run(name: str, env: Env) -> tuple[subprocess.Popen, set[int]]:
    """Start the command with its --summary on a FIFO nobody reads: it does all its work, writes its
    outputs to their temporaries and waits to write the summary. Return once it waits so, holding its
    lock, its outputs' temporaries (and its scratch directory)."""
    fifo = env.out / "summary.fifo"
    os.mkfifo(fifo)
    env.options["--summary"] = str(fifo)
    process = start(env.cmd.argv(env))
    lock, output = output_path(env) + ".lock", os.path.basename(output_path(env))
    prefix = SCRATCH.get(name)

    def waiting() -> bool:
        names = os.listdir(env.out)
        return (os.path.exists(lock) and any(n.startswith(f".{output}.kcooc-") for n in names)
                and (prefix is None or any(n.startswith(prefix) for n in names)))

    wait_while_running(process, waiting, "the run's lock, temporaries and scratch directory")
    return process, descendants(process.pid)


# -- class 1: SIGTERM and SIGINT end the run cleanly; the run after a SIGKILL removes its debris ------------


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("name", RUNS)
def test_signal_ends_the_run_cleanly(name, signum, code, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    before = snapshot(tmp_path)
    process, children = blocked_run(name, env)
    before[str(env.out / "summary.fifo")] = "special"
    sent = time.monotonic()
    assert signalled(process, signum) == code, process.stderr.read().decode()
    assert "interrupted" in one_line(process.stderr.read()) or signum == signal.SIGTERM
    print(f"{name}: ended {time.monotonic() - sent:.2f} s after the signal")
    assert snapshot(tmp_path) == before  # no lock, no scratch, no temporary; the previous output intact
    assert_gone(children | {process.pid})


@pytest.mark.parametrize("delay", [0, 0.1, 0.3])
@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("launcher", [PYTHON_M, SCRIPT], ids=["python -m kcooc", "kcooc script"])
def test_signal_during_start_up_ends_the_run_cleanly(launcher, signum, code, delay, inputs, tmp_path):
    """A signal while the command line and the command's method are still being imported (about half a
    second, before the command's ``guarded`` has its handlers) ends the run as a later one does: exit
    143 / 130, one line, nothing left. It is sent ``delay`` s after the entry point's handlers are in
    place, seen in /proc (SIGTERM caught: Python itself catches only SIGINT); an earlier one lands in
    the interpreter's own start (site.py: Python's traceback, exit 1; before that the signal's default
    action), where no code of kcooc's runs yet. With no delay it lands before numpy is loaded, in the
    imports; later ones land in the imports or in the run (waiting on its FIFO input): all the same."""
    env = env_for("phsic train", tmp_path, inputs)
    fifo = env.inp / "input.fifo"  # nobody writes it: a run that gets that far waits
    os.mkfifo(fifo)
    set_read(env, "phsic train", str(fifo))
    before = snapshot(tmp_path)
    process = start(env.cmd.argv(env), launcher)
    wait_while_running(process, lambda: catches(process.pid, signal.SIGTERM), "the entry point's handlers",
                       interval=0.001)
    time.sleep(delay)
    importing = not loaded(process.pid, "_multiarray_umath")
    assert signalled(process, signum) == code, process.stderr.read().decode()
    line = one_line(process.stderr.read())
    assert ("terminated" if signum == signal.SIGTERM else "interrupted") in line
    print(f"{delay} s after the handlers, numpy {'not ' * importing}loaded: {line.strip()}")
    assert snapshot(tmp_path) == before
    assert importing or delay > 0, "the handlers came after numpy's import: not at the start"


@pytest.mark.parametrize("signal_error,code", [("Terminated", 143), ("KeyboardInterrupt", 130), (None, 1)])
def test_a_signal_a_library_wrapped_still_ends_the_run_as_that_signal(signal_error, code, capsys):
    """A compiled module built with pybind11 (matplotlib's, for ca plot) turns an exception raised while it
    initialises into ImportError "initialization failed": a SIGTERM landing then still exits 143 (SIGINT
    130), not 1 as a failure; an ImportError of its own stays a failure."""
    from kcooc import errors
    from kcooc.cli.runtime import guarded

    def importing():
        try:
            if signal_error:
                raise getattr(errors, signal_error, KeyboardInterrupt)()
            raise OSError("libfreetype.so.6: cannot open shared object file")
        except BaseException as exc:
            raise ImportError("initialization failed") from exc

    with pytest.raises(SystemExit) as ended:
        guarded(importing)()
    assert ended.value.code == code
    assert ("initialization failed" in capsys.readouterr().err) == (code == 1)


@pytest.mark.parametrize("signal_error,code,message", [("Terminated", 143, "terminated (SIGTERM)"),
                                                        ("KeyboardInterrupt", 130, "interrupted (SIGINT)")])
def test_a_signal_before_the_command_runs_ends_as_that_signal(signal_error, code, message, monkeypatch):
    """A signal's exception raised before a command's ``guarded`` (here while the command is looked up), which
    click turns into Abort, ends in-process callers of the command line as that signal: SIGTERM 143, not
    SIGINT's 130 (after the blank line with which click closes a terminal's ``^C``)."""
    from kcooc import errors
    from kcooc.cli.group import KcoocGroup

    def looking_up(self, ctx, name):
        raise getattr(errors, signal_error, KeyboardInterrupt)()

    monkeypatch.setattr(KcoocGroup, "get_command", looking_up)
    result = invoke(["phsic", "train", "--help"])
    assert result.exit_code == code, result.output
    assert result.stderr == f"\nkcooc: error: {message}\n", result.stderr


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
@pytest.mark.parametrize("swallowed", ["bare except", "wrapped, except Exception"])
@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_a_library_swallowed_still_ends_the_run(signum, code, swallowed, capsys, tmp_path):
    """The signal's exception raised where a library swallows it (Cython's module init: ``except: pass``;
    matplotlib's ``except Exception`` around the Axes3D import, whose class creation Python 3.11 wraps
    in RuntimeError): the run does not go on to write its summary (a FIFO there: blocked for ever), it
    ends as that signal."""
    from kcooc.cli.runtime import guarded, write_summary

    summary = tmp_path / "run.json"

    def run():
        caught = BaseException if swallowed == "bare except" else Exception
        try:
            try:
                signal.raise_signal(signum)  # the handler raises here
            except BaseException as exc:
                if swallowed == "bare except":
                    raise
                raise RuntimeError("Error calling __set_name__") from exc
        except caught:
            pass
        write_summary(str(summary), {"command": "test"})

    with pytest.raises(SystemExit) as ended:
        guarded(run)()
    assert ended.value.code == code
    assert not summary.exists()
    assert ("terminated" if signum == signal.SIGTERM else "interrupted") in one_line(capsys.readouterr().err)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("name", sorted(SCRATCH))
def test_a_signal_a_library_swallowed_after_the_summary_leaves_the_previous_output(name, signum, code, inputs,
                                                                                   tmp_path, monkeypatch):
    """The real command, in-process: the signal lands after the run's summary, while its scratch directory is
    removed (the last step before its guard commits; a worker pool's shutdown, a library's cleanup), and is
    swallowed there (``except: pass``). The guard does not commit: exit 143 / 130, one line, and the
    previous output byte for byte as before, no summary, nothing left."""
    from kcooc.io.outputs import OutputGuard

    scratch = OutputGuard.scratch

    @contextlib.contextmanager
    def scratch_whose_cleanup_swallows(self, *args, **kwargs):
        with scratch(self, *args, **kwargs) as path:
            yield path
        try:
            signal.raise_signal(signum)  # the handler raises here
        except BaseException:
            pass

    monkeypatch.setattr(OutputGuard, "scratch", scratch_whose_cleanup_swallows)
    env = env_for(name, tmp_path, inputs)
    env.options["--summary"] = str(env.out / "run.json")
    before = snapshot(tmp_path)
    result = invoke(env.cmd.argv(env))
    assert result.exit_code == code, result.stderr
    assert ("terminated" if signum == signal.SIGTERM else "interrupted") in one_line(result.stderr)
    assert open(output_path(env), "rb").read() == b"previous output\n"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", RUNS)
def test_next_run_removes_what_a_killed_run_left(name, inputs, tmp_path):
    """SIGKILL (nothing can clean up), plus temporaries named as a run names them with the dead pid; the
    next run on the same output removes them all and leaves only its outputs."""
    env = env_for(name, tmp_path, inputs)
    process, children = blocked_run(name, env)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert_gone(children)
    dead = process.pid
    output = os.path.basename(output_path(env))
    (env.out / f".{output}.kcooc-{dead}-abcd1234.tmp").write_text("half written")
    (env.out / f".run.json.kcooc-{dead}-abcd1234.tmp").write_text("half written")
    (env.out / f".kcooc-other-{output}-{dead}-abcd1234").mkdir()
    assert any(n.startswith(".") for n in os.listdir(env.out))
    os.unlink(env.out / "summary.fifo")
    env.options["--summary"] = str(env.out / "run.json")
    result = invoke(env.cmd.argv(env))
    assert result.exit_code == 0, result.stderr
    assert [n for n in os.listdir(env.out) if n.startswith(".")] == []
    assert open(output_path(env), "rb").read() != b"previous output\n" and os.path.exists(env.out / "run.json")


@pytest.mark.parametrize("name,args,scratch", [
    ("filter-parallel", ["--jobs", "2", "--task-lines", "50"], ".kcooc-filter-"),
    ("ks align", ["--jobs", "2"], ".kcooc-ks-"),
])
def test_sigterm_stops_the_workers(name, args, scratch, inputs, tmp_path):
    """SIGTERM while `--jobs 2` workers run a pass: workers stopped, everything removed, exit 143."""
    env = env_for(name, tmp_path, inputs)
    if name == "filter-parallel":
        big = env.inp / "big.tsv"
        big.write_bytes(open(os.path.join(DATA, "en-ja.tsv"), "rb").read() * 30)
        env.options["-i"] = str(big)
    else:  # a long p sweep on all 60 names
        for side, source in (("en.txt", "names-en.txt"), ("ar.txt", "names-ar.txt")):
            shutil.copy(os.path.join(DATA, source), env.inp / side)
        (env.inp / "gold.tsv").write_text("".join(f"{i}\t{i}\n" for i in range(1, 61)))
        (env.inp / "ks.yaml").write_text("features: {kind: chars}\nmethod: s-z\np_start: 0.01\np_step: 0.002\n")
    env.extra += args
    before = snapshot(tmp_path)
    process = start(env.cmd.argv(env))

    def contexts() -> list[str]:
        return [n for d in os.listdir(env.out) if d.startswith(scratch)
                for n in os.listdir(env.out / d) if n.startswith("kcooc-context-")]

    wait_while_running(process, lambda: len(_children(process.pid)) >= 2 and contexts(), "two workers running a pass")
    workers = descendants(process.pid)
    assert signalled(process, signal.SIGTERM) == 143, process.stderr.read().decode()
    assert_gone(workers)
    assert snapshot(tmp_path) == before


# -- class 2: the lock file is never followed through a link ------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_lock_path_that_is_a_link_is_refused(name, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    target = env.inp / "victim.txt"
    target.write_text("a file the user owns elsewhere\n")
    os.symlink(target, output_path(env) + ".lock")
    before = snapshot(tmp_path)
    children = set(_children(os.getpid()))
    result = invoke(env.cmd.argv(env))
    assert result.exit_code == 2, result.stderr
    assert "symbolic link" in one_line(result.stderr)
    assert snapshot(tmp_path) == before
    assert set(_children(os.getpid())) <= children


# -- class 3: outputs are committed together; two streams on one stdout are refused -------------------------


@pytest.mark.parametrize("name", RUNS)
def test_a_failing_last_output_leaves_no_new_file(name, inputs, tmp_path):
    """--summary on a full disk (/dev/full): the run fails (exit 1) and the outputs it had written
    already stay temporaries, removed: the previous output is intact, nothing new appears."""
    env = env_for(name, tmp_path, inputs)
    env.options["--summary"] = "/dev/full"
    assert "No space left on device" in fails_leaving_nothing(env, tmp_path, 1)


@pytest.mark.parametrize("name", NAMES)
def test_two_outputs_on_stdout_are_refused(name, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    env.options[env.cmd.output] = "-"
    env.options["--summary"] = "-"
    assert "two outputs on stdout" in fails_leaving_nothing(env, tmp_path, 2)


def members(output: bytes) -> dict | bytes:
    """An .npz model's members and their bytes (a zip written to a pipe describes each member after its data,
    so the archive's own bytes differ), or the output itself."""
    if not output.startswith(b"PK"):
        return output
    with zipfile.ZipFile(io.BytesIO(output)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize("name", sorted(SCRATCH))
def test_output_on_dev_stdout_through_a_pipe_is_written_in_place(name, inputs, tmp_path):
    """``-o /dev/stdout`` with stdout a pipe: the output is a special file whose directory (/proc/PID/fd) takes
    no scratch directory, so a command with one makes it in the system's temporary directory (it failed,
    exit 1, making it beside the pipe); the output equals the one written to a file, no file appears
    beside the outputs or in the temporary directory, and the file output of the first run is untouched."""
    env = env_for(name, tmp_path, inputs)
    to_file = invoke(env.cmd.argv(env))
    assert to_file.exit_code == 0, to_file.stderr
    written = output_path(env)
    expected = open(written, "rb").read()
    before, scratch = snapshot(tmp_path), set(os.listdir(tempfile.gettempdir()))
    env.options[env.cmd.output] = "/dev/stdout"
    piped = subprocess.run([sys.executable, "-m", "kcooc", *map(str, env.cmd.argv(env))], capture_output=True)
    assert piped.returncode == 0, piped.stderr.decode()
    after = snapshot(tmp_path)  # the other outputs (--summary, --scores) are written again, in place
    assert members(piped.stdout) == members(expected) and after.keys() == before.keys()
    assert after[written] == before[written]
    assert not {n for n in set(os.listdir(tempfile.gettempdir())) - scratch if n.startswith(SCRATCH[name])}


# -- class 4: inputs that never end ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES + ["ca eval -i", "filter-parallel (on_error: skip)"])
def test_endless_line_is_refused(name, inputs, tmp_path):
    """/dev/zero (no newline, ever) as the input: exit 2 naming /dev/zero:1, no hang, no MemoryError."""
    command = name.split(" (")[0].removesuffix(" -i")
    env = env_for(command, tmp_path, inputs)
    if name == "ca eval -i":
        env.options["-i"] = "/dev/zero"
    else:
        set_read(env, command, "/dev/zero")
    if "on_error: skip" in name:
        env.options["-c"] = FILTER_CONFIG  # the shipped config skips malformed lines
    message = fails_leaving_nothing(env, tmp_path, 2)
    assert "/dev/zero" in message and ("/dev/zero:1" in message or command in ("phsic merge",)), message


@pytest.mark.parametrize("name,option,content", [
    ("ca eval", "-b", "cat dog 5\n"), ("ks align", "--source", "alphabetagamma\nbeta\n"), ("nsk train", "-i", None),
    ("ca plot", "-i", "\talphabetagamma\tb\nx\t1\t2\ny\t3\t1\n"), ("ca embed", "-i", "the cat sat on the mat " * 20),
])
def test_line_limit_is_configurable(name, option, content, inputs, tmp_path, monkeypatch):
    """KCOOC_MAX_LINE_BYTES sets the limit of every reader of lines other than TSV (input.max_line_bytes)."""
    env = env_for(name, tmp_path, inputs)
    path = env.inp / "long.txt"
    if content is None:
        content = open(env.options[option], encoding="utf-8").read()
    path.write_text(content.replace(" ", "") if name == "ca embed" else content)
    env.options[option] = str(path)
    monkeypatch.setenv("KCOOC_MAX_LINE_BYTES", "8")
    assert "long.txt:1: line longer than 8 bytes" in fails_leaving_nothing(env, tmp_path, 2)


@pytest.mark.parametrize("name", ["filter-parallel", "ca embed"])
def test_fifo_input_is_read_once(name, inputs, tmp_path):
    """A command that reads its input twice spools a FIFO once: the same output as from the file, no hang."""
    env = env_for(name, tmp_path, inputs)
    source = env.options["-i"]
    expected = tmp_path / "expected"
    reference = invoke(env.cmd.argv(env))  # the regular file
    assert reference.exit_code == 0, reference.stderr
    shutil.copy(output_path(env), expected)
    fifo = env.inp / "input.fifo"
    os.mkfifo(fifo)
    env.options["-i"] = str(fifo)
    process = start(env.cmd.argv(env))
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(open(source, "rb").read()), daemon=True)
    writer.start()
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, process.stderr.read().decode()
    assert open(output_path(env), "rb").read() == expected.read_bytes()
    assert [n for n in os.listdir(env.out) if n.startswith(".")] == []


# -- class 7: odd output places ---------------------------------------------------------------------------


def _read_only_run(directory, args: list) -> subprocess.CompletedProcess:
    """Run the command with ``directory`` read-only: a read-only bind mount in a user namespace (the kernel
    refuses writes even to root), or the directory's mode where there is no such namespace."""
    argv = [sys.executable, "-m", "kcooc", *map(str, args)]
    if shutil.which("unshare") and subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0:
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
        return subprocess.run(["unshare", "-rm", "sh", "-c", script, str(directory), *argv], capture_output=True)
    if os.geteuid() == 0:
        pytest.skip("root without user namespaces: no directory is read-only")
    os.chmod(directory, 0o555)
    try:
        return subprocess.run(argv, capture_output=True)
    finally:
        os.chmod(directory, 0o755)


READ_ONLY = [(name, "-o") for name in NAMES] + [("phsic train", "--work-dir"), ("filter-parallel", "--work-dir"),
                                                  ("srk classify", "--cache-dir")]


@pytest.mark.parametrize("name,option", READ_ONLY)
def test_read_only_places_are_refused_before_any_work(name, option, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    place = env.out
    if option != "-o":
        place = tmp_path / "place"
        place.mkdir()
        env.options[option] = str(place / "cache") if option == "--cache-dir" else str(place)
    before = snapshot(tmp_path)
    result = _read_only_run(place, env.cmd.argv(env))
    assert result.returncode == 2, result.stderr
    message = one_line(result.stderr)
    assert "cannot write in" in message and (option == "-o" or option in message), message
    assert snapshot(tmp_path) == before


def _eval_overwrites(env: Env, which: str) -> None:
    if which == "named":
        data = env.inp / "benchmarks"
        data.mkdir()
        shutil.copy(env.options["-b"], data / "men.txt")
        env.options.update({"-b": "men", "--data-dir": str(data), "-o": str(data / "men.txt")})
    else:
        second = env.inp / "second.txt"
        shutil.copy(env.options["-b"], second)
        env.options.update({"-b": f"{env.options['-b']}, {second}", "-o": str(second)})


@pytest.mark.parametrize("case,name,expect", [
    ("named benchmark", "ca eval", "would overwrite the input"),
    ("second -b file", "ca eval", "would overwrite the input"),
    ("--cache-dir is -o", "srk classify", "--cache-dir"),
])
def test_output_onto_what_the_run_reads_is_refused(case, name, expect, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    if name == "ca eval":
        _eval_overwrites(env, "named" if case == "named benchmark" else "second")
    else:
        env.options["--cache-dir"] = output_path(env)
        os.unlink(output_path(env))
    assert expect in fails_leaving_nothing(env, tmp_path, 2)


class Pwned:
    """Unpickling this makes a file: if it ever exists, a pickle was loaded."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _damage(tile: str, how: str, marker: str) -> None:
    if how == "garbage":
        with open(tile, "wb") as f:
            f.write(b"PK\x03\x04 not a zip at all" * 10)
    elif how == "pickled":
        stream = io.BytesIO()
        np.save(stream, np.array([Pwned(marker)], dtype=object), allow_pickle=True)
        with zipfile.ZipFile(tile, "w") as archive:
            archive.writestr("block.npy", stream.getvalue())
    else:
        with np.load(tile) as npz:
            block = npz["block"].copy()
        block.flat[0] = np.nan
        np.savez(tile, block=block)


@pytest.mark.parametrize("how", ["pickled", "garbage", "nan"])
def test_damaged_cache_tiles_are_recomputed(how, inputs, tmp_path):
    env = env_for("srk classify", tmp_path, inputs)
    cache = tmp_path / "cache"
    env.options["--cache-dir"] = str(cache)
    first = invoke(env.cmd.argv(env))
    assert first.exit_code == 0, first.stderr
    predictions = open(output_path(env), "rb").read()
    tiles = sorted(str(p) for p in cache.rglob("rows-*.npz"))
    assert tiles
    marker = str(tmp_path / "pwned")
    for tile in tiles:
        _damage(tile, how, marker)
    os.unlink(output_path(env))
    result = invoke(env.cmd.argv(env))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("damaged cache tile") == len(tiles), result.stderr
    assert open(output_path(env), "rb").read() == predictions
    assert not os.path.exists(marker), "a pickle was loaded"
    for tile in tiles:  # rewritten, sound
        with np.load(tile, allow_pickle=False) as npz:
            assert np.isfinite(npz["block"]).all()


# -- the report branch's inputs and outputs (issue 27): two aligned files, --report, zstd ------------------


def aligned_env(tmp_path, inputs, report: bool = True) -> Env:
    """filter-parallel on two aligned files (its TSV input split in two), writing -o, --src-output,
    --tgt-output, --scores and (``report``) --report, each with a previous output."""
    env = env_for("filter-parallel", tmp_path, inputs)
    pairs = [line.split("\t") for line in open(env.options.pop("-i"), encoding="utf-8").read().splitlines()]
    for side, suffix in ((0, "en"), (1, "ja")):
        (env.inp / f"enja.{suffix}").write_text("".join(pair[side] + "\n" for pair in pairs), encoding="utf-8")
    env.options.update({"--src-input": str(env.inp / "enja.en"), "--tgt-input": str(env.inp / "enja.ja"),
                        "--src-output": str(env.out / "kept.en"), "--tgt-output": str(env.out / "kept.ja")})
    if report:
        env.options["--report"] = str(env.out / "report.html")
    for option in ("--src-output", "--tgt-output", "--scores", *(["--report"] if report else [])):
        with open(env.options[option], "w") as f:
            f.write("previous output\n")
    return env


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_signal_removes_the_report_and_the_aligned_outputs(signum, code, inputs, tmp_path):
    """--report, --src-output and --tgt-output are the guard's: a signal while they are temporaries
    removes them, the previous ones stay byte for byte."""
    env = aligned_env(tmp_path, inputs)
    before = snapshot(tmp_path)
    process, children = blocked_run("filter-parallel", env)
    names = os.listdir(env.out)
    for output in ("report.html", "kept.en", "kept.ja"):  # all written, none committed
        assert any(n.startswith(f".{output}.kcooc-{process.pid}-") for n in names), names
    before[str(env.out / "summary.fifo")] = "special"
    assert signalled(process, signum) == code, process.stderr.read().decode()
    assert snapshot(tmp_path) == before
    assert_gone(children | {process.pid})


def test_report_on_a_full_disk_leaves_no_new_file(inputs, tmp_path):
    """--report /dev/full: exit 1, and -o, --src-output, --tgt-output, --scores stay temporaries, removed."""
    env = aligned_env(tmp_path, inputs, report=False)
    env.options["--report"] = "/dev/full"
    assert "No space left on device" in fails_leaving_nothing(env, tmp_path, 1)


@pytest.mark.parametrize("options", [{"--src-output": "-", "--tgt-output": "-"}, {"--report": "-"}],
                         ids=["both sides", "-o and --report"])
def test_two_aligned_outputs_on_stdout_are_refused(options, inputs, tmp_path):
    env = aligned_env(tmp_path, inputs)
    env.options.update(options)
    if "--report" in options:
        env.options["-o"] = "-"
    assert "two outputs on stdout" in fails_leaving_nothing(env, tmp_path, 2)


# --report on every command that has it (issue 27): the page is an output like any other, so a path it
# cannot take is refused before any work and a failed or stopped run leaves no page and no other output
REPORTS = {"filter-parallel": "--scores", "ca embed": "--export-w2v"}  # the command -> another of its outputs


def _report_at(env: Env, name: str, where: str) -> str:
    if where == "the supervision":
        env.options["--supervision"] = str(env.inp / "bench.txt")
    return {"the input": env.options["-i"], "the config": env.options["-c"], "the supervision": str(
        env.inp / "bench.txt"), "the output": output_path(env), "another output": env.options[REPORTS[name]],
        "a directory": str(env.out), "a missing directory": str(env.out / "missing" / "report.html")}[where]


@pytest.mark.parametrize("name,where,expect", [
    *((name, where, expect) for name in REPORTS for where, expect in (
        ("the input", "would overwrite the input"), ("the config", "would overwrite the input"),
        ("the output", "given for two outputs"), ("another output", "given for two outputs"),
        ("a directory", "is a directory"), ("a missing directory", "does not exist"))),
    ("ca embed", "the supervision", "would overwrite the input"),
])
def test_report_path_it_cannot_take_is_refused_before_any_work(name, where, expect, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    env.options["--report"] = _report_at(env, name, where)
    assert expect in fails_leaving_nothing(env, tmp_path, 2)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_report_on_a_full_disk_fails_the_run_leaving_nothing(name, inputs, tmp_path):
    env = env_for(name, tmp_path, inputs)
    env.options["--report"] = "/dev/full"
    assert "No space left on device" in fails_leaving_nothing(env, tmp_path, 1)


def test_signal_removes_ca_embeds_report(inputs, tmp_path):
    """ca embed's page is the guard's: written, waiting for the summary, then SIGTERM: no page, no vectors."""
    env = env_for("ca embed", tmp_path, inputs)
    env.options["--report"] = str(env.out / "report.html")
    before = snapshot(tmp_path)
    process, children = blocked_run("ca embed", env)
    # the vectors' temporary may come first: wait for the page's too (the run then waits on the summary)
    wait_while_running(process, lambda: any(n.startswith(f".report.html.kcooc-{process.pid}-")
                                            for n in os.listdir(env.out)), "the report's temporary")
    before[str(env.out / "summary.fifo")] = "special"
    assert signalled(process, signal.SIGTERM) == 143, process.stderr.read().decode()
    assert snapshot(tmp_path) == before
    assert_gone(children | {process.pid})


@pytest.mark.parametrize("side", ["--src-input", "--tgt-input"])
@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_endless_line_in_an_aligned_file_is_refused(side, on_error, inputs, tmp_path):
    """/dev/zero as one of two aligned files: exit 2 naming /dev/zero:1 (the copy stops at the limit;
    with on_error: skip at 64 times it), no hang, no MemoryError, nothing left."""
    env = aligned_env(tmp_path, inputs)
    env.options[side] = "/dev/zero"
    if on_error == "skip":
        env.options["-c"] = FILTER_CONFIG
    assert "/dev/zero:1: line longer than" in fails_leaving_nothing(env, tmp_path, 2)


def test_long_line_in_an_aligned_file_names_its_file_and_line(inputs, tmp_path):
    """input.max_line_bytes is each aligned file's limit: a longer line is exit 2 naming that file:line."""
    env = aligned_env(tmp_path, inputs)
    target = env.inp / "enja.ja"
    lines = target.read_text(encoding="utf-8").splitlines()
    lines[2] = "長" * 5000
    target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    config = env.inp / "limit.yaml"
    config.write_text(open(env.options["-c"], encoding="utf-8").read().replace(
        "on_error: fail}", "on_error: fail, max_line_bytes: 10000}"))
    env.options["-c"] = str(config)
    assert "enja.ja:3: line longer than 10,000 bytes" in fails_leaving_nothing(env, tmp_path, 2)


def _zstd_or_gzip(kind: str, data: bytes) -> bytes:
    if kind == "zstd":
        return pytest.importorskip("zstandard").ZstdCompressor(level=3).compress(data)
    import gzip

    return gzip.compress(data, mtime=0)


@pytest.mark.parametrize("kind", ["zstd", "gzip"])
def test_endless_line_in_a_compressed_input_is_refused(kind, inputs, tmp_path):
    """A compressed input that decompresses to 64 MiB without a newline (named .zst/.gz, and found by its
    magic bytes under a plain name): exit 2 naming file:1, memory bounded by the limit, nothing left."""
    env = env_for("filter-parallel", tmp_path, inputs)
    bomb = _zstd_or_gzip(kind, bytes(64 << 20))
    for name in (f"zeros.tsv.{'zst' if kind == 'zstd' else 'gz'}", "zeros.tsv"):
        (env.inp / name).write_bytes(bomb)
        env.options["-i"] = str(env.inp / name)
        assert f"{name}:1: line longer than" in fails_leaving_nothing(env, tmp_path, 2)


def _through_fifo(env: Env, contents: dict[str, bytes]) -> subprocess.Popen:
    """Start the run with each option of ``contents`` read from a FIFO that is fed those bytes once."""
    writers = []
    for option, data in contents.items():
        fifo = env.inp / f"fifo{len(writers)}"
        os.mkfifo(fifo)
        env.options[option] = str(fifo)
        writers.append(threading.Thread(target=lambda f=fifo, d=data: open(f, "wb").write(d), daemon=True))
    process = start(env.cmd.argv(env))
    for writer in writers:
        writer.start()
    return process


@pytest.mark.parametrize("case", ["--src-input", "both", "-i gzip", "-i zstd"])
def test_fifo_aligned_or_compressed_input_is_read_once(case, inputs, tmp_path):
    """A FIFO as --src-input/--tgt-input is copied once as -i is (the same outputs as from the files); a FIFO
    carrying a compressed stream is copied as it is and found by its magic bytes."""
    if case.startswith("-i"):
        env = env_for("filter-parallel", tmp_path, inputs)
        kind = case.split()[1]
        contents = {"-i": _zstd_or_gzip(kind, open(env.options["-i"], "rb").read())}
        outputs = [output_path(env)]
    else:
        env = aligned_env(tmp_path, inputs)
        sides = ["--src-input", "--tgt-input"] if case == "both" else [case]
        contents = {side: open(env.options[side], "rb").read() for side in sides}
        outputs = [env.options[o] for o in ("-o", "--src-output", "--tgt-output", "--scores")]
    reference = invoke(env.cmd.argv(env))  # the regular files
    assert reference.exit_code == 0, reference.stderr
    expected = [open(path, "rb").read() for path in outputs]
    process = _through_fifo(env, contents)
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, process.stderr.read().decode()
    assert [open(path, "rb").read() for path in outputs] == expected
    assert [n for n in os.listdir(env.out) if n.startswith(".")] == []


@pytest.mark.parametrize("name", ["phsic score", "nsk classify", "ks align"])
def test_fifo_read_once_is_sniffed_without_seeking(name, inputs, tmp_path):
    """A FIFO given to a command that reads its input once (no copy): the magic-byte sniffing of a path
    without a compression suffix gives the bytes it read back instead of seeking (a FIFO cannot)."""
    env = env_for(name, tmp_path, inputs)
    option = READS[name]
    reference = invoke(env.cmd.argv(env))
    assert reference.exit_code == 0, reference.stderr
    expected = open(output_path(env), "rb").read()
    process = _through_fifo(env, {option: open(env.options[option], "rb").read()})
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, process.stderr.read().decode()
    assert open(output_path(env), "rb").read() == expected


# -- class 9: Dask scheduler addresses --------------------------------------------------------------------


def test_garbage_scheduler_address_is_one_line(inputs, tmp_path):
    env = env_for("filter-parallel", tmp_path, inputs)
    env.extra += ["--engine", "dask", "--scheduler", "garbage"]
    assert "--scheduler: 'garbage' is not a Dask scheduler address" in fails_leaving_nothing(env, tmp_path, 2)


def test_unreachable_scheduler_fails_in_bounded_time(inputs, tmp_path):
    pytest.importorskip("distributed")
    env = env_for("filter-parallel", tmp_path, inputs)
    env.extra += ["--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    before = snapshot(tmp_path)
    process = start(env.cmd.argv(env))
    try:
        process.wait(timeout=120)  # the engine gives up after its 10 s; generous for a loaded machine
    finally:
        process.kill()
    assert process.returncode == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in one_line(process.stderr.read())
    assert snapshot(tmp_path) == before


def test_pickle_helper_is_what_it_claims(tmp_path):
    """The damaged-tile test's pickle would make its marker file if anything unpickled it."""
    marker = tmp_path / "m"
    pickle.loads(pickle.dumps(Pwned(str(marker)))).close()
    assert marker.exists()
