"""kcooc's exceptions: library errors for Python callers, one-line messages and exit codes for the CLI.

Bad input or a bad parameter raises :class:`InputError`, a :class:`ValueError`, so Python code can
catch it as usual; the command line prints its message on one line and exits 2. Any other
:class:`KcoocError` is a runtime failure (exit 1) and :class:`LockedError` a busy output (exit 75).
"""


class KcoocError(Exception):
    """A runtime failure: exit code 1."""

    exit_code = 1


class InputError(KcoocError, ValueError):
    """Bad usage, input or parameter (file, column, config, model, argument value): exit code 2."""

    exit_code = 2


class LockedError(KcoocError):
    """Another run holds the lock on the same output: exit code 75 (EX_TEMPFAIL, "try again later")."""

    exit_code = 75
