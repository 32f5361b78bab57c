"""The ``kcooc`` command and ``python -m kcooc``: SIGINT and SIGTERM end a run with one line and exit
130 / 143 from its start, not only once its command runs.

Importing the command line and the command's method (click, numpy, ...) takes up to half a second, and
until the command's ``guarded`` (kcooc/cli/runtime.py) takes the signals over, a signal ended in
Python's KeyboardInterrupt traceback (SIGTERM: a silent death). No output is written before then (the
``--log-file`` is opened, to append), so there is nothing to unwind: the handler here prints the line and
exits at once, which no library's ``except`` around an import can swallow. Its handlers are in place
before anything heavy is imported (kcooc and kcooc.errors import only the standard library).
"""

from __future__ import annotations

import os
import signal

from .errors import SIGNAL_EXITS


def _exit_at_once(signum, frame) -> None:
    message, code = SIGNAL_EXITS[signum]
    os.write(2, f"kcooc: error: {message}\n".encode())
    os._exit(code)


def main() -> None:
    for signum in SIGNAL_EXITS:
        signal.signal(signum, _exit_at_once)
    from .cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
