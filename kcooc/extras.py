"""Optional dependencies: each is installed by a pip extra, and a missing one is a one-line error
(exit code 2) naming the extra, raised only by the command or option that needs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import InputError

EXTRA_OF = {  # top-level module -> the extra that installs it (pyproject.toml)
    "fasttext": "fasttext",
    "wordllama": "wordllama",
    "nltk": "wordnet",
    "matplotlib": "plot",
    "anyascii": "translit",
    "zstandard": "zstd",
}


class MissingExtra(InputError):
    """An optional dependency is not installed: exit code 2, naming ``pip install 'kcooc[extra]'``."""


def import_optional(module: str, purpose: str) -> ModuleType:
    """``importlib.import_module(module)``, or :class:`MissingExtra` naming the extra that installs it;
    ``purpose`` completes "needed ..." (e.g. "by kcooc ca plot"). Only a missing package is translated:
    a broken install still raises its own error."""
    package = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != package:
            raise
        raise MissingExtra(f"{package}, needed {purpose}, is not installed: pip install 'kcooc[{EXTRA_OF[package]}]'"
                           ) from None
