"""Exceptions that the CLI turns into one-line messages and exit codes (DESIGN.md)."""


class KcoocError(Exception):
    """A runtime failure: exit code 1."""

    exit_code = 1


class InputError(KcoocError):
    """Bad usage or bad input (file, column, config, model): exit code 2."""

    exit_code = 2


class LockedError(KcoocError):
    """Another run holds the lock on the same output: exit code 75 (EX_TEMPFAIL, "try again later")."""

    exit_code = 75
