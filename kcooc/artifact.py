"""``.npz`` model files: named arrays plus a JSON header, never pickle.

The header records the kind, the format version, the kcooc version, the resolved config and a
hash of the training data. The zip is written with fixed timestamps so that the same model
gives byte-identical files, and loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from typing import Any, Callable, Iterable, TypeVar

import numpy as np

from . import __version__
from .errors import InputError
from .io.outputs import atomic_output

T = TypeVar("T")
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


def load(path: str, kind: str, read: Callable[[dict, dict], T] | None = None) -> tuple[dict[str, Any], Any]:
    """Read a model of ``kind``; anything but a sound model of that kind is an InputError naming the file.

    Every array must be numeric or text (no objects, no complex numbers) and every float finite.
    ``read(header, arrays)`` is the kind's own schema, kept beside its model code: it checks the
    names, dtypes and consistent shapes (with :func:`check_arrays`) and returns the model object,
    which ``load`` returns in place of the arrays.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except FileNotFoundError:
        raise InputError(f"{path}: model file not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a model file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise InputError(f"{path}: not a kcooc model file ({exc})") from None
    if _HEADER not in arrays:
        raise InputError(f"{path}: not a kcooc model file (no header)")
    try:
        header = json.loads(arrays.pop(_HEADER).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise InputError(f"{path}: corrupt model header") from None
    if not isinstance(header, dict):
        raise InputError(f"{path}: corrupt model header (not a JSON object)")
    if header.get("kind") != kind:
        raise InputError(f"{path}: is a {header.get('kind')!r} model, expected a {kind!r} model")
    version = header.get("format_version", 0)
    if not isinstance(version, int):
        raise InputError(f"{path}: corrupt model header (format_version {version!r})")
    if version > FORMAT_VERSION:
        raise InputError(
            f"{path}: model format {header['format_version']} is newer than this kcooc "
            f"({__version__}) reads (format {FORMAT_VERSION}); upgrade kcooc"
        )
    for name, array in arrays.items():
        if array.dtype.kind not in "biufU":
            raise InputError(f"{path}: invalid {kind} model: array {name!r} has dtype {array.dtype}")
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise InputError(f"{path}: invalid {kind} model: array {name!r} holds NaN or infinite values")
    if read is None:
        return header, arrays
    try:
        return header, read(header, arrays)
    except InputError as exc:
        raise InputError(f"{path}: invalid {kind} model: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        what = f"missing {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"{path}: invalid {kind} model: {what}") from None


def check_arrays(arrays: dict[str, np.ndarray], schema: dict[str, tuple[str, tuple]],
                 optional: Iterable[str] = ()) -> dict[str, int]:
    """Check ``arrays`` against ``{name: (dtype kinds, shape)}`` and return the named dimensions.

    dtype kinds are numpy kind letters ("f" float, "iu" integer, "U" text); a shape lists ints or
    dimension names, and a name means the same size wherever it appears. Names in ``optional``
    may be absent; an array the schema does not name is an error.
    """
    unknown = sorted(set(arrays) - set(schema))
    if unknown:
        raise InputError(f"unexpected array {unknown[0]!r}")
    dims: dict[str, int] = {}
    for name, (kinds, shape) in schema.items():
        if name not in arrays:
            if name in optional:
                continue
            raise InputError(f"missing array {name!r}")
        array = arrays[name]
        if array.dtype.kind not in kinds:
            raise InputError(f"array {name!r} has dtype {array.dtype}, expected {_KIND_NAMES.get(kinds, kinds)}")
        if array.ndim != len(shape):
            raise InputError(f"array {name!r} has {array.ndim} dimensions, expected {len(shape)}")
        for axis, (size, want) in enumerate(zip(array.shape, shape)):
            expected = dims.setdefault(want, size) if isinstance(want, str) else want
            if size != expected:
                label = f" ({want})" if isinstance(want, str) else ""
                raise InputError(f"array {name!r} has size {size} on axis {axis}{label}, expected {expected}")
    return dims


_KIND_NAMES = {"f": "float", "iu": "integer", "U": "text"}
