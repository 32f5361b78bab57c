import dataclasses
import glob
import os

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
    with pytest.raises(InputError, match="kernel.sigma must be positive"):
        config.load(PhsicConfig, write(tmp_path, "kernel:\n  sigma: -2\n"))
    with pytest.raises(InputError, match="invalid YAML"):
        config.load(PhsicConfig, write(tmp_path, "kernel: [\n"))


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
