"""``.npz`` model files: named arrays plus a JSON header, never pickle; and safe reading of ``.npy`` arrays.

The header records the kind, the format version, the kcooc version, the resolved config and a
hash of the training data. The zip is written with fixed timestamps so that the same model
gives byte-identical files. Reading trusts nothing in the file: every member must be a ``.npy``
array of numbers or text whose header's shape and dtype account for exactly the bytes the member
holds (checked before anything is allocated, so a header that declares terabytes is refused, not
attempted), and the JSON header may hold no NaN or infinite number.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
import zlib
from typing import IO, Any, Callable, Iterable, TypeVar

import numpy as np

from . import __version__
from .errors import InputError, KcoocError
from .io.writers import atomic_output

T = TypeVar("T")
FORMAT_VERSION = 1
_HEADER = "__header__"
_NPY_MAGIC, _ZIP_MAGIC = b"\x93NUMPY", b"PK"
_DEFLATE_MAX_RATIO = 1032  # deflate expands at most this much: a member declaring more is lying
ARRAY_KINDS = "biufU"  # numbers and text: no objects (pickle), no complex, no structured arrays


def save(path: str, kind: str, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> None:
    """Write ``arrays`` and ``header`` to ``path`` atomically; a float array with NaN or infinite values
    (which :func:`load` refuses) is a KcoocError and writes nothing."""
    for name, array in arrays.items():
        if np.asarray(array).dtype.kind == "f" and not np.isfinite(array).all():
            raise KcoocError(f"{path}: not written: the {kind} model's array {name!r} holds NaN or infinite values")
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
    header's fields (its config as a config file is checked), the arrays' names, dtypes and
    consistent shapes (with :func:`check_arrays`) and returns the model object, which ``load``
    returns in place of the arrays.
    """
    arrays = _read_model_arrays(path)
    if _HEADER not in arrays:
        raise InputError(f"{path}: not a kcooc model file (no header)")
    try:
        header = json.loads(arrays.pop(_HEADER).tobytes().decode("utf-8"), parse_constant=_not_finite,
                            parse_float=_finite_float)
    except (UnicodeDecodeError, ValueError, RecursionError):  # ValueError: bad JSON, NaN, an int of 4,300+ digits
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


def part(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays whose names start with ``prefix``, named without it (one part of a saved model)."""
    return {name[len(prefix):]: value for name, value in arrays.items() if name.startswith(prefix)}


def _not_finite(constant: str) -> None:
    raise ValueError(f"{constant} in the header")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} in the header")
    return value


def _read_model_arrays(path: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive ``path``: each member a checked ``.npy`` (:func:`read_npy`)."""
    magic = _magic(path, "model file")
    if magic.startswith(_NPY_MAGIC):
        raise InputError(f"{path}: is a single .npy array, not a .npz model file")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            names = [member.filename for member in members]
            odd = ([name for name in names if not name.endswith(".npy")]
                   or sorted({n for n in names if names.count(n) > 1}))
            if odd:
                raise InputError(f"{path}: not a kcooc model file (member {odd[0]!r} is not one array)")
            arrays = {}
            for member in members:
                _check_member_size(member, os.path.getsize(path), path)
                with archive.open(member) as stream:
                    arrays[member.filename[:-4]] = read_npy(stream, member.file_size,
                                                            f"{path}: member {member.filename!r}")
            return arrays
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as exc:
        # NotImplementedError: a compression method zipfile lacks; RuntimeError: an encrypted member
        raise InputError(f"{path}: not a kcooc model file ({exc})") from None


def is_array_file(path: str) -> bool:
    """Whether ``path`` starts as a ``.npz`` archive or a ``.npy`` array does (whatever its name); a FIFO or a
    device is not (it is read as text, once)."""
    if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
        return False
    return _magic(path, "file").startswith((_ZIP_MAGIC, _NPY_MAGIC))


def _magic(path: str, what: str) -> bytes:
    """The first bytes of ``path``; a missing file, a directory or anything but a regular file (a FIFO,
    ``/dev/zero``: an archive is read by seeking) is an InputError."""
    try:
        if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            raise InputError(f"{path}: not a regular file; a {what} is read by seeking: give a file")
        with open(path, "rb") as f:
            return f.read(len(_NPY_MAGIC))
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _check_member_size(member: zipfile.ZipInfo, archive_bytes: int, path: str) -> None:
    """The sizes a zip member declares must fit the archive (and, deflated, deflate's largest expansion)."""
    stored = member.compress_type == zipfile.ZIP_STORED
    if (member.compress_size > archive_bytes or (stored and member.file_size != member.compress_size)
            or member.file_size > _DEFLATE_MAX_RATIO * member.compress_size + 1024):
        raise InputError(f"{path}: member {member.filename!r} declares {member.file_size:,} bytes, more than the "
                         f"{archive_bytes:,}-byte archive can hold")


def read_npy(stream: IO[bytes], size: int, what: str, kinds: str = ARRAY_KINDS) -> np.ndarray:
    """The array of a ``.npy`` stream of ``size`` bytes; its header must declare a dtype of ``kinds``
    and a shape whose bytes are exactly what follows the header, checked before allocating."""
    shape, fortran, dtype, data_bytes = _npy_header(stream, size, what, kinds)
    buffer = bytearray(data_bytes)
    view, filled = memoryview(buffer), 0
    while filled < data_bytes:
        count = stream.readinto(view[filled:])
        if not count:
            raise InputError(f"{what}: truncated array data")
        filled += count
    return np.frombuffer(buffer, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _npy_header(stream: IO[bytes], size: int, what: str, kinds: str) -> tuple[tuple, bool, np.dtype, int]:
    """(shape, Fortran order, dtype, data bytes) of a ``.npy`` header, checked against the ``size`` bytes."""
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f".npy format version {version} is not read")
    except (ValueError, TypeError, SyntaxError, EOFError) as exc:  # read_magic, the header's literal
        raise InputError(f"{what}: not a .npy array ({exc})") from None
    if (dtype.kind not in kinds or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None
            or dtype.itemsize == 0):
        raise InputError(f"{what}: an array of dtype {dtype} (expected numbers{' or text' if 'U' in kinds else ''})")
    if any(d < 0 for d in shape):
        raise InputError(f"{what}: the header declares the shape {shape}")
    data_bytes = math.prod(shape) * dtype.itemsize
    available = size - stream.tell()
    if data_bytes != available:
        raise InputError(f"{what}: the header declares a {shape} array of {dtype} ({data_bytes:,} bytes), "
                         f"the file holds {available:,} bytes of data")
    return shape, fortran, dtype, data_bytes


def npy_file(path: str, kinds: str = "biuf", mmap: bool = False) -> np.ndarray:
    """The array of the ``.npy`` file ``path``, checked as :func:`read_npy` checks it (a ``.npz``
    archive is refused by name); ``mmap`` maps it read-only instead of reading it."""
    if _magic(path, ".npy file").startswith(_ZIP_MAGIC):
        raise InputError(f"{path}: is a .npz archive, expected a single .npy array")
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if not mmap:
                return read_npy(f, size, path, kinds)
            shape, fortran, dtype, _ = _npy_header(f, size, path, kinds)
            offset = f.tell()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if math.prod(shape) == 0:  # a memory map of no bytes is refused by mmap
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C")


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
