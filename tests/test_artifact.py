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
    with pytest.raises(InputError, match="not a kcooc model"):
        artifact.load(path, "phsic")
