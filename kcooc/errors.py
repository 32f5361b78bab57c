"""kcooc's exceptions: library errors for Python callers, one-line messages and exit codes for the CLI.

Bad input or a bad parameter raises :class:`InputError`, a :class:`ValueError`, so Python code can
catch it as usual; the command line prints its message on one line and exits 2. Any other
:class:`KcoocError` is a runtime failure (exit 1) and :class:`LockedError` a busy output (exit 75).
Messages name parameters and config keys, never command-line options: an error about one carries its
``key`` (``input.header``, ``src_lang``), and the command line leads the message with its option.
"""


class KcoocError(Exception):
    """A runtime failure: exit code 1. ``key``: the parameter or config key the error is about, if any."""

    exit_code = 1

    def __init__(self, message: str = "", key: str | None = None):
        super().__init__(message)
        self.key = key


class InputError(KcoocError, ValueError):
    """Bad usage, input or parameter (file, column, config, model, argument value): exit code 2."""

    exit_code = 2


class LockedError(KcoocError):
    """Another run holds the lock on the same output: exit code 75 (EX_TEMPFAIL, "try again later")."""

    exit_code = 75
