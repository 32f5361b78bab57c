import dataclasses
import glob
import os
import subprocess
import sys

import pytest

from kcooc import config
from kcooc.ca.config import CaConfig
from kcooc.errors import InputError
from kcooc.filtering.config import FilterConfig
from kcooc.ks.config import KsConfig
from kcooc.nsk.config import NskConfig
from kcooc.phsic.config import PhsicConfig
from kcooc.srk.config import SrkConfig

ROOT = os.path.dirname(os.path.dirname(__file__))


def write(tmp_path, text):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return str(path)


def test_unknown_key_is_an_error_naming_it(tmp_path):
    with pytest.raises(InputError, match=r"unknown config key 'kernel\.rnak' \(did you mean 'kernel\.rank'\?\)"):
        config.load(PhsicConfig, write(tmp_path, "kernel:\n  rnak: 10\n"))
    with pytest.raises(InputError, match="unknown config key 'y_encoder.nmae'"):
        config.load(PhsicConfig, write(tmp_path, "y_encoder:\n  nmae: hashing\n"))


def test_wrong_types_and_choices_name_the_key(tmp_path):
    with pytest.raises(InputError, match="'kernel.rank': expected int"):
        config.load(PhsicConfig, write(tmp_path, "kernel:\n  rank: ten\n"))
    with pytest.raises(InputError, match="'kernel.name'"):
        config.load(PhsicConfig, write(tmp_path, "kernel:\n  name: gaussian\n"))
    with pytest.raises(InputError, match=r"'kernel.sigma': expected a number in \[1e-100, 1e\+100\], got -2"):
        config.load(PhsicConfig, write(tmp_path, "kernel:\n  sigma: -2\n"))
    with pytest.raises(InputError, match="invalid YAML"):
        config.load(PhsicConfig, write(tmp_path, "kernel: [\n"))


def test_ranges_bound_every_number_and_list_item(tmp_path):
    with pytest.raises(InputError, match=r"'kernel.degree': expected an integer in \[1, 20\], got -1"):
        config.load(PhsicConfig, write(tmp_path, "kernel: {degree: -1}\n"))
    with pytest.raises(InputError, match=r"'encoder.char_ngrams\[1\]': expected an integer in \[1, 32\], got 0"):
        config.load(PhsicConfig, write(tmp_path, "encoder: {char_ngrams: [2, 0]}\n"))
    with pytest.raises(InputError, match=r"'hashing.bits': expected an integer in \[1, 62\], got 0"):
        config.load(NskConfig, write(tmp_path, "hashing: {bits: 0}\n"))
    with pytest.raises(InputError,
                       match=r"'seed': expected an integer in \[0, 4294967295\], got an integer of 3322 bits"):
        config.load(PhsicConfig, write(tmp_path, f"seed: {10**1000}\n"))
    assert config.load(NskConfig, write(tmp_path, "hashing: {bits: null}\n")).hashing.bits is None
    assert config.load(PhsicConfig, write(tmp_path, "kernel: {sigma: median}\n")).kernel.sigma == "median"


def test_feature_space_covariance_is_bounded(tmp_path):
    """cos/linear keep an n_x x n_y float64 covariance: 2^20 x 2^20 hashed columns would be 8 TiB."""
    from kcooc.kernels import KERNELS
    from kcooc.phsic.config import FEATURE_SPACE_KERNELS

    assert FEATURE_SPACE_KERNELS == tuple(name for name, kernel in KERNELS.items() if kernel.feature_space)
    with pytest.raises(InputError, match="1,099,511,627,776 entries of the dense covariance"):
        config.load(FilterConfig, write(tmp_path, "encoder: {n_features: 1048576}\nkernel: {name: cos}\n"))
    assert config.load(PhsicConfig, write(tmp_path, "encoder: {n_features: 1048576}\nkernel: {name: rbf}\n"))
    assert config.load(PhsicConfig, write(tmp_path, "encoder: {n_features: 16384}\n"))


def test_a_bad_option_value_is_reported_under_the_option(tmp_path):
    path = write(tmp_path, "kernel: {name: rbf}\n")
    expect = r"^config key 'kernel.sigma': expected a number in \[1e-100, 1e\+100\]"
    with pytest.raises(InputError, match=expect) as bad:
        config.load(PhsicConfig, path, {"kernel.sigma": 1e300})
    assert bad.value.key == "kernel.sigma"  # the command line leads the problem with the option that set the key
    with pytest.raises(InputError, match=r"c.yaml: config key 'kernel.rank'") as bad:  # the file's own bad value
        config.load(PhsicConfig, write(tmp_path, "kernel: {rank: 0}\n"), {"kernel.sigma": 1.0})
    assert bad.value.key is None
    out = subprocess.run([sys.executable, "-m", "kcooc", "phsic", "train", "-c", path, "--sigma", "1e300", "-i",
                          str(tmp_path / "none.tsv"), "-o", str(tmp_path / "m.npz")], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.strip() == (
        "kcooc phsic train: error: --sigma: expected a number in [1e-100, 1e+100], got 1e+300"), out.stderr


@pytest.mark.parametrize("content,expect", [
    (b"\xff\xfek\x00e\x00y\x00", "c.yaml: is UTF-16 text; a config must be UTF-8"),
    (b"seed: 1\nk: 2\nname: caf\xe9\n", "c.yaml:3: invalid UTF-8"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "c.yaml:1: invalid UTF-8"),
    (b"[" * 100000, "nested more than 32 levels deep"),
    (b"a: [" + b"1, " * (1 << 19) + b"1]\n", "a config is at most 1 MiB"),
    (b"seed: 1" + b"0" * 5000 + b"\n", "c.yaml: invalid YAML: Exceeds the limit"),
])
def test_config_files_that_are_not_small_utf8_yaml_are_refused(tmp_path, content, expect):
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=expect):
        config.load(PhsicConfig, str(path))


def test_alias_bombs_are_reported_briefly(tmp_path):
    """Nine levels of nine aliases expand to 9^9 items; the message shows a few of them, not all."""
    levels = (["&a0 [" + ", ".join(["1"] * 9) + "]"]
              + [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)])
    with pytest.raises(InputError, match="'seed': expected int") as caught:
        config.load(PhsicConfig, write(tmp_path, f"seed: [{', '.join(levels)}]\n"))
    assert len(str(caught.value)) < 300


def test_overrides_win_and_none_means_unset(tmp_path):
    path = write(tmp_path, "kernel:\n  name: rbf\n  rank: 50\nencoder:\n  name: hashing\n  char_ngrams: [2, 3]\n")
    cfg = config.load(PhsicConfig, path, {"kernel.rank": 20, "kernel.name": None, "input.src_col": "ctx"})
    assert (cfg.kernel.name, cfg.kernel.rank, cfg.input.src_col) == ("rbf", 20, "ctx")
    assert cfg.encoder.char_ngrams == [2, 3] and cfg.kernel.sigma == "median"
    assert config.load(PhsicConfig, None, config.to_dict(cfg) and {}) == PhsicConfig()


CONFIG_CLASSES = {"dialogue": PhsicConfig, "filter": FilterConfig, "ks": KsConfig, "text8": CaConfig,
                  "srk": SrkConfig, "nsk": NskConfig}


@pytest.mark.parametrize("cls", CONFIG_CLASSES.values())
def test_every_key_is_documented_in_configs_readme(cls):
    readme = open(os.path.join(ROOT, "configs", "README.md")).read()
    for key, _, doc, _ in config.documented_keys(cls):
        assert doc, key
        assert f"`{key}`" in readme, f"configs/README.md does not document {key}"


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml"))))
def test_shipped_configs_load(path):
    cls = CONFIG_CLASSES[os.path.basename(path).split("-")[0].removesuffix(".yaml")]
    cfg = config.load(cls, path)
    assert dataclasses.is_dataclass(cfg)
