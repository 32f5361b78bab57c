"""Exceptions that the CLI turns into one-line messages and exit codes (DESIGN.md)."""


class KcoocError(Exception):
    """A runtime failure: exit code 1."""

    exit_code = 1


class InputError(KcoocError):
    """Bad usage or bad input (file, column, config, model): exit code 2."""

    exit_code = 2
