"""YAML configs -> validated dataclasses.

Configs are read with ``yaml.safe_load``. Every key is a dataclass field with a ``doc``; an
unknown key is an error naming it (with a close match when there is one), a value of the wrong
type or outside its choices is an error naming the key. CLI options override keys by their
dotted name (``kernel.name``). ``configs/README.md`` documents every key; a test keeps it in sync.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from typing import Any, Literal, Union

import yaml

from .errors import InputError


def option(default: Any, doc: str, **kwargs) -> Any:
    """A config field with its documentation (shown by ``configs/README.md``)."""
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata={"doc": doc}, **kwargs)
    return dataclasses.field(default=default, metadata={"doc": doc}, **kwargs)


def section(cls: type, doc: str) -> Any:
    return dataclasses.field(default_factory=cls, metadata={"doc": doc})


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return " | ".join(repr(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return f"list of {_type_name(typing.get_args(tp)[0])}"
    return "null" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _coerce(value: Any, tp: Any, key: str) -> Any:
    """Check ``value`` against the annotation ``tp``; return it (ints are accepted for floats)."""
    origin = typing.get_origin(tp)
    if origin is Literal:
        if value in typing.get_args(tp):
            return value
    elif origin in (Union, types.UnionType):
        for option_type in typing.get_args(tp):
            if dataclasses.is_dataclass(option_type) and isinstance(value, dict):
                return from_dict(option_type, value, prefix=f"{key}.")
            try:
                return _coerce(value, option_type, key)
            except InputError:
                continue
    elif origin is list:
        if isinstance(value, list):
            return [_coerce(v, typing.get_args(tp)[0], f"{key}[{i}]") for i, v in enumerate(value)]
    elif dataclasses.is_dataclass(tp):
        if isinstance(value, dict):
            return from_dict(tp, value, prefix=f"{key}.")
    elif tp is type(None):
        if value is None:
            return None
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise InputError(f"config key {key!r}: expected a finite number, got {value!r}")
            return float(value)
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(value, tp):
        return value
    raise InputError(f"config key {key!r}: expected {_type_name(tp)}, got {value!r}")


def from_dict(cls: type, data: dict, prefix: str = "") -> Any:
    """Build dataclass ``cls`` from a mapping, rejecting unknown keys and mistyped values."""
    if not isinstance(data, dict):
        raise InputError(f"config section {prefix.rstrip('.') or '<top>'!r} must be a mapping")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    for key in data:
        if key not in fields:
            close = difflib.get_close_matches(str(key), fields, n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            raise InputError(f"unknown config key '{prefix}{key}'{hint}")
    kwargs = {k: _coerce(v, hints[k], prefix + k) for k, v in data.items()}
    if isinstance(kwargs.get("seed"), int) and not 0 <= kwargs["seed"] < 2**32:
        raise InputError(f"config key '{prefix}seed': expected an integer in 0..2^32-1, got {kwargs['seed']}")
    obj = cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if validate:
        validate()
    return obj


NULL = object()  # an override value that sets a key to null (None means "no override")


def load(cls: type, path: str | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """Read YAML ``path`` (optional) into ``cls`` and apply dotted-key ``overrides``."""
    data: dict = {}
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f) or {}
        except OSError as exc:
            raise InputError(f"{path}: cannot read config: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise InputError(f"{path}: invalid YAML: {exc}".replace("\n", " ")) from None
        if not isinstance(data, dict):
            raise InputError(f"{path}: a config must be a YAML mapping")
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        if value is NULL:
            value = None
        node = data
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    try:
        return from_dict(cls, data)
    except InputError as exc:
        raise InputError(f"{path}: {exc}" if path else str(exc)) from None


def to_dict(obj: Any) -> dict:
    return dataclasses.asdict(obj)


def dump(obj: Any) -> str:
    return yaml.safe_dump(to_dict(obj), sort_keys=False, allow_unicode=True)


def documented_keys(cls: type, prefix: str = "") -> list[tuple[str, str, str, Any]]:
    """(dotted key, type, doc, default) for every key of ``cls``, nested sections expanded."""
    rows = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp):
            rows.extend(documented_keys(tp, prefix=f"{prefix}{f.name}."))
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        item = (typing.get_args(tp) or [None])[0]
        if typing.get_origin(tp) is list and dataclasses.is_dataclass(item):  # a list of sections: keys of an item
            rows.append((prefix + f.name, _type_name(tp), f.metadata.get("doc", ""),
                         [dataclasses.asdict(x) for x in default]))
            rows.extend(documented_keys(item, prefix=f"{prefix}{f.name}[]."))
            continue
        rows.append((prefix + f.name, _type_name(tp), f.metadata.get("doc", ""), default))
    return rows


# -- sections shared by every command that reads sentence pairs -------------------------------------


@dataclasses.dataclass
class InputConfig:
    src_col: Union[int, str] = option(1, "x (source/context) column: 1-based index, or a header name with header: true")
    tgt_col: Union[int, str] = option(2, "y (target/response) column: 1-based index, or a header name")
    header: bool = option(False, "the first line is a header naming the columns")
    on_error: Literal["fail", "skip"] = option("fail", "malformed line: stop with file:line (fail) or skip and count it (skip)")
    block_size: int = option(8192, "pairs encoded and processed per block (memory ~ one block)")
    max_line_bytes: int = option(1 << 20, "lines longer than this are malformed")

    def validate(self) -> None:
        if self.block_size < 1 or self.max_line_bytes < 1:
            raise InputError("input.block_size and input.max_line_bytes must be >= 1")


@dataclasses.dataclass
class EncoderConfig:
    name: Literal["hashing", "fasttext", "vectors", "wordllama"] = option(
        "hashing", "sentence encoder: hashing (no model), fasttext (.bin), vectors (word2vec .vec text), wordllama")
    model: Union[str, None] = option(None, "fasttext: path to a .bin model; vectors: path to a .vec file")
    pooling: Literal["sum", "mean"] = option("sum", "fasttext/vectors: sum (Eq. 22) or mean of the word vectors")
    lowercase: bool = option(True, "lower-case text before encoding")
    strip_punctuation: bool = option(True, "fasttext/vectors: remove ASCII punctuation before splitting on spaces")
    split_cjk: bool = option(False, "fasttext/vectors: make every kana/Han character a token (Japanese, Chinese); "
                             "the model must be trained on the same split")
    dim: Union[int, None] = option(None, "wordllama: embedding size (64, 128, 256, 512 or 1024; default 256)")
    n_features: int = option(1024, "hashing: number of hashed columns")
    word_ngrams: int = option(2, "hashing: word n-grams of order 1..word_ngrams (0 = none)")
    char_ngrams: list[int] = option([], "hashing: character n-gram orders inside tokens, e.g. [2, 3] for Japanese")
