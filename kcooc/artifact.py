"""``.npz`` model files: named arrays plus a JSON header, never pickle (DESIGN.md, "Artifacts").

The header records the kind, the format version, the kcooc version, the resolved config and a
hash of the training data. The zip is written with fixed timestamps so that the same model
gives byte-identical files, and loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

import json
import zipfile
from typing import Any

import numpy as np

from . import __version__
from .errors import InputError
from .io import atomic_output

FORMAT_VERSION = 1
_HEADER = "__header__"


def save(path: str, kind: str, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> None:
    """Write ``arrays`` and ``header`` to ``path`` atomically."""
    full_header = {"kind": kind, "format_version": FORMAT_VERSION, "kcooc_version": __version__, **header}
    payload = dict(arrays)
    payload[_HEADER] = np.frombuffer(json.dumps(full_header, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    with atomic_output(path, binary=True) as raw:
        with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_STORED) as archive:
            for name in sorted(payload):
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                with archive.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(payload[name]), allow_pickle=False)


def load(path: str, kind: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a model of ``kind``; a missing file, another kind or a newer format is an InputError."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except FileNotFoundError:
        raise InputError(f"{path}: model file not found") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a kcooc model file ({exc})") from None
    if _HEADER not in arrays:
        raise InputError(f"{path}: not a kcooc model file (no header)")
    try:
        header = json.loads(arrays.pop(_HEADER).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(f"{path}: corrupt model header") from None
    if header.get("kind") != kind:
        raise InputError(f"{path}: is a {header.get('kind')!r} model, expected a {kind!r} model")
    if header.get("format_version", 0) > FORMAT_VERSION:
        raise InputError(
            f"{path}: model format {header['format_version']} is newer than this kcooc "
            f"({__version__}) reads (format {FORMAT_VERSION}); upgrade kcooc"
        )
    return header, arrays
