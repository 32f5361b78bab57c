import json
import zipfile

import numpy as np
import pytest

from kcooc import artifact
from kcooc.errors import InputError


def test_roundtrip_and_byte_identical(tmp_path):
    arrays = {"a": np.arange(6.0).reshape(2, 3), "b": np.array([1, 2], dtype=np.int64)}
    paths = [str(tmp_path / f"m{i}.npz") for i in range(2)]
    for path in paths:
        artifact.save(path, "demo", arrays, {"config": {"x": 1}, "data_sha256": "ab"})
    assert open(paths[0], "rb").read() == open(paths[1], "rb").read()
    header, loaded = artifact.load(paths[0], "demo")
    assert header["kind"] == "demo" and header["config"] == {"x": 1} and "kcooc_version" in header
    np.testing.assert_array_equal(loaded["a"], arrays["a"])
    with np.load(paths[0], allow_pickle=False) as npz:  # loadable by plain numpy
        assert set(npz.files) == {"a", "b", "__header__"}


def test_wrong_kind_newer_format_and_garbage(tmp_path):
    path = str(tmp_path / "m.npz")
    artifact.save(path, "phsic", {"a": np.zeros(1)}, {})
    with pytest.raises(InputError, match="is a 'phsic' model, expected a 'ca' model"):
        artifact.load(path, "ca")
    newer = str(tmp_path / "new.npz")
    header = np.frombuffer(json.dumps({"kind": "phsic", "format_version": 99}).encode(), dtype=np.uint8)
    np.savez(newer, __header__=header)
    with pytest.raises(InputError, match="format 99 is newer"):
        artifact.load(newer, "phsic")
    garbage = tmp_path / "g.npz"
    garbage.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a kcooc model"):
        artifact.load(str(garbage), "phsic")
    with pytest.raises(InputError, match="not found"):
        artifact.load(str(tmp_path / "missing.npz"), "phsic")
    assert zipfile.is_zipfile(path)


def test_object_arrays_are_refused(tmp_path):
    path = str(tmp_path / "pickle.npz")
    np.savez(path, __header__=np.frombuffer(b'{"kind": "phsic"}', dtype=np.uint8), evil=np.array([{}], dtype=object))
    with pytest.raises(InputError, match="member 'evil.npy': an array of dtype object"):
        artifact.load(path, "phsic")


def _header(shape: tuple, descr: str = "<f8") -> bytes:
    """A .npy file's magic and header declaring ``shape`` of ``descr``, without data."""
    import io

    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, {"descr": descr, "fortran_order": False, "shape": shape})
    return stream.getvalue()


def _model_with(tmp_path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> str:
    path = str(tmp_path / "lying.npz")
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in {"__header__.npy": _npy(np.frombuffer(b'{"kind": "phsic"}', np.uint8)), **members}.items():
            archive.writestr(name, data)
    return path


def _npy(array: np.ndarray) -> bytes:
    import io

    stream = io.BytesIO()
    np.save(stream, array)
    return stream.getvalue()


@pytest.mark.parametrize("members,expect", [
    ({"x.npy": _header((1 << 20, 1 << 20))}, r"member 'x.npy': the header declares a \(1048576, 1048576\) array of "
                                             r"float64 \(8,796,093,022,208 bytes\), the file holds 0 bytes"),
    ({"x.npy": _npy(np.zeros(3))[:-8]}, "declares a \\(3,\\) array"),
    ({"notes.txt": b"hello"}, r"member 'notes.txt' is not one array"),
    ({"x.npy": b"garbage, not an array"}, r"member 'x.npy': not a .npy array"),
    ({"x.npy": _npy(np.zeros(2, dtype=np.complex128))}, "dtype complex128"),
    ({"x.npy": _npy(np.zeros(2, dtype=[("a", "<f8")]))}, r"an array of dtype"),
    ({"x.npy": _header((10**12,), "<U0")}, r"an array of dtype <U0"),
])
def test_lying_members_are_refused_before_allocating(tmp_path, members, expect):
    """A .npy header is checked against the bytes its member holds before anything is allocated."""
    with pytest.raises(InputError, match=expect):
        artifact.load(_model_with(tmp_path, members), "phsic")


def test_declared_member_sizes_must_fit_the_archive(tmp_path):
    path = _model_with(tmp_path, {"x.npy": _npy(np.zeros(4))})
    data = bytearray(open(path, "rb").read())
    entry = next(i for i in range(len(data))  # x.npy's central directory record: its name at byte 46
                 if data.startswith(b"PK\x01\x02", i) and data[i + 46: i + 51] == b"x.npy")
    data[entry + 24: entry + 28] = (1 << 31).to_bytes(4, "little")  # uncompressed size: 2 GiB
    open(path, "wb").write(bytes(data))
    with pytest.raises(InputError, match="declares 2,147,483,648 bytes"):
        artifact.load(path, "phsic")


def test_compressed_archives_load(tmp_path):
    path = _model_with(tmp_path, {"x.npy": _npy(np.arange(1000.0))}, zipfile.ZIP_DEFLATED)
    np.testing.assert_array_equal(artifact.load(path, "phsic")[1]["x"], np.arange(1000.0))


@pytest.mark.parametrize("header", [b'{"kind": "phsic", "x": NaN}', b'{"kind": "phsic", "x": -Infinity}',
                                    b'{"kind": "phsic", "x": 1e999}', b'{"kind": "phsic", "x": 1' + b"0" * 5000 + b"}"])
def test_header_numbers_must_be_finite_json(tmp_path, header):
    path = str(tmp_path / "m.npz")
    np.savez(path, __header__=np.frombuffer(header, np.uint8))
    with pytest.raises(InputError, match="corrupt model header"):
        artifact.load(path, "phsic")


def test_npy_and_npz_are_told_apart(tmp_path):
    npz, npy = str(tmp_path / "m.npz"), str(tmp_path / "v.npy")
    artifact.save(npz, "phsic", {"a": np.zeros(1)}, {})
    np.save(npy, np.ones((2, 3)))
    with pytest.raises(InputError, match="is a single .npy array, not a .npz model file"):
        artifact.load(npy, "phsic")
    with pytest.raises(InputError, match="is a .npz archive, expected a single .npy array"):
        artifact.npy_file(npz)
    np.testing.assert_array_equal(artifact.npy_file(npy), np.ones((2, 3)))
    np.testing.assert_array_equal(artifact.npy_file(npy, mmap=True), np.ones((2, 3)))
    with open(npy, "wb") as f:
        f.write(_header((10**6, 10**6)) + b"\0" * 64)
    with pytest.raises(InputError, match="the file holds 64 bytes of data"):
        artifact.npy_file(npy, mmap=True)
