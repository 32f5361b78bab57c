"""kcooc's exceptions: library errors for Python callers, one-line messages and exit codes for the CLI.

Bad input or a bad parameter raises :class:`InputError`, a :class:`ValueError`, so Python code can
catch it as usual; the command line prints its message on one line and exits 2. Using an estimator
before fitting it raises :class:`NotFittedError`, an :class:`InputError` that is also an
:class:`AttributeError` (as scikit-learn's). Any other :class:`KcoocError` is a runtime failure
(exit 1) and :class:`LockedError` a busy output (exit 75). Messages name parameters and config keys,
never command-line options: an error about one carries its ``key`` (``input.header``, ``src_lang``),
and the command line leads the message with its option. A run that SIGINT or SIGTERM stopped ends with
the signal's exception, which :func:`raise_if_signalled` raises again where a library swallowed it.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


class KcoocError(Exception):
    """A runtime failure: exit code 1. ``key``: the parameter or config key the error is about, if any."""

    exit_code = 1

    def __init__(self, message: str = "", key: str | None = None):
        super().__init__(message)
        self.key = key


class InputError(KcoocError, ValueError):
    """Bad usage, input or parameter (file, column, config, model, argument value): exit code 2.

    The command line prints ``kcooc CMD: error: <message>`` on one line and exits 2; Python callers
    catch it as the :class:`ValueError` it also is.

    Examples
    --------
    >>> from kcooc import PHSIC, InputError
    >>> try:
    ...     PHSIC(rank=0)
    ... except ValueError as error:
    ...     print(type(error).__name__, error)
    InputError rank must be >= 1, got 0
    """

    exit_code = 2


class NotFittedError(InputError, AttributeError):
    """An estimator was used before it learned anything; the message names the method to call.

    An :class:`InputError` (the command line exits 2), a :class:`ValueError` and an
    :class:`AttributeError`, like scikit-learn's ``NotFittedError``, so ``except ValueError`` and
    ``hasattr`` keep working.

    Examples
    --------
    >>> import numpy as np
    >>> from kcooc import PHSIC, NotFittedError
    >>> try:
    ...     PHSIC().score(np.ones((2, 3)), np.ones((2, 3)))
    ... except NotFittedError as error:
    ...     print(error)
    this PHSIC is not fitted yet: call fit first
    """


class LockedError(KcoocError):
    """Another run holds the lock on the same output: exit code 75 (EX_TEMPFAIL, "try again later")."""

    exit_code = 75


def check_fitted(estimator: object, attribute: str, call: str = "fit") -> None:
    """Raise :class:`NotFittedError` naming ``call`` unless ``estimator`` has ``attribute`` (not None)."""
    if getattr(estimator, attribute, None) is None:
        raise NotFittedError(f"this {type(estimator).__name__} is not fitted yet: call {call} first")


class Terminated(KeyboardInterrupt):
    """A run stopped by SIGTERM: raised in the main thread like SIGINT's KeyboardInterrupt, so that every
    ``finally`` (temporaries, scratch directories, the lock, worker processes) runs; exit code 143."""


# a run that a signal stopped: its one-line message and exit code (the command line's, and its start-up's)
SIGNAL_EXITS = {signal.SIGINT: ("interrupted (SIGINT)", 130), signal.SIGTERM: ("terminated (SIGTERM)", 143)}


def signal_exit(exc: BaseException | None) -> tuple[str, int]:
    """The message and exit code of a run that ``exc`` stopped (:class:`Terminated`: SIGTERM; else SIGINT)."""
    return SIGNAL_EXITS[signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT]


class Caught:
    """The signal a run caught, if any (``signum`` None: none). The command line's handler records it
    (kcooc/cli/runtime.py, ``signals_unwind``); it lives here so that the output guard (kcooc/io), which
    must not import the command line, can refuse to commit a stopped run's outputs."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def exception(self) -> KeyboardInterrupt | None:
        """A new exception of the caught signal (:class:`Terminated`, KeyboardInterrupt), or None."""
        if self.signum is None:
            return None
        return Terminated() if self.signum == signal.SIGTERM else KeyboardInterrupt()


_CAUGHT: list[Caught] = []  # the running caught_signal blocks' records, innermost last


@contextlib.contextmanager
def caught_signal() -> Iterator[Caught]:
    """A new :class:`Caught` for the block: the one :func:`raise_if_signalled` reads while it runs."""
    caught = Caught()
    _CAUGHT.append(caught)
    try:
        yield caught
    finally:
        _CAUGHT.remove(caught)


def raise_if_signalled() -> None:
    """Raise again the exception of a signal that the running :func:`caught_signal` block caught.

    The handler raises it once, wherever the main thread is, and the run is meant to unwind from
    there; but a library may swallow it: Cython's module initialisation (``except: pass`` around its
    ``Sequence.register``), or ``except Exception`` around an exception that wraps it (matplotlib's
    import of the 3D axes, whose class creation Python 3.11 wraps in RuntimeError). The run then
    goes on with the signal's default action restored, and would finish, or block for ever on a
    FIFO nobody reads. Called before a run's last steps (its summary, its return) and before its
    output guard commits, so that a stopped run never replaces the previous outputs."""
    exc = _CAUGHT[-1].exception() if _CAUGHT else None
    if exc is not None:
        raise exc
