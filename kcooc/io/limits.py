"""How long an input line may be, and how an error names an input: the limit of every reader of
files other than TSV (:data:`MAX_LINE_BYTES`, ``KCOOC_MAX_LINE_BYTES``), what ``on_error: skip`` may
drop before the run stops (:data:`SKIP_LIMIT`), and :func:`display_name` (``<stdin>`` for ``-``, both
paths for two aligned files). The bottom of the readers: compression.py, aligned.py and readers.py use it.
"""

from __future__ import annotations

import os

from ..errors import InputError

MAX_LINE_BYTES = 1 << 20
"""The longest line (or, in a corpus read in blocks, the longest run of bytes without whitespace) the
readers of files other than TSV accept (benchmarks, JSON lines, ks objects, corpora, tables): 1 MiB, or
the environment's ``KCOOC_MAX_LINE_BYTES``. TSV inputs have their config's ``input.max_line_bytes``."""


def max_line_bytes() -> int:
    """:data:`MAX_LINE_BYTES`, or ``KCOOC_MAX_LINE_BYTES`` when the environment sets it (1 to 2^30)."""
    value = os.environ.get("KCOOC_MAX_LINE_BYTES")
    if value is None:
        return MAX_LINE_BYTES
    if not value.strip().isdigit() or not 1 <= int(value) <= 1 << 30:
        raise InputError(f"KCOOC_MAX_LINE_BYTES={value!r}: expected a number of bytes in [1, 2^30]")
    return int(value)


SKIP_LIMIT = 64  # on_error skip: a line is skipped if it ends within 64 times the limit; beyond, the run stops


def line_too_long(path: object, line: int, limit: int) -> InputError:
    return InputError(f"{display_name(path)}:{line}: line longer than {limit:,} bytes (the limit: "
                      "input.max_line_bytes for TSV, KCOOC_MAX_LINE_BYTES for other files)")


def display_name(path: object) -> str:
    """``path`` as errors name it: ``<stdin>`` for ``-``; a path, or two aligned files (aligned.py), as written."""
    return "<stdin>" if path == "-" else str(path)
