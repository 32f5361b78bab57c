"""A text corpus as chunks of tokens: a (possibly single-line, possibly compressed) file read a block
at a time (kcooc.io) and tokenised (counting.tokenize)."""

from __future__ import annotations

from typing import Callable, Iterator

from ..io.readers import text_blocks
from .counting import tokenize


def token_chunks(path: str, chunk_bytes: int = 1 << 24, observe: Callable[[bytes], None] | None = None,
                 lowercase: bool = False) -> Iterator[list[str]]:
    """Tokens (``tokenize``) of a (possibly single-line, possibly compressed) text file, chunk by chunk.

    ``observe``, if given, is called with every block of bytes read (a digest, a progress bar).
    """
    for text in text_blocks(path, chunk_bytes, observe):
        yield tokenize(text, lowercase)
