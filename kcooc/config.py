"""YAML configs -> validated dataclasses.

Configs are UTF-8 YAML files of at most ``MAX_CONFIG_BYTES``, nested at most ``MAX_CONFIG_DEPTH``
levels, read with PyYAML's safe loader. Every key is a dataclass field with a ``doc``; an unknown
key is an error naming it (with a close match when there is one), a value of the wrong type,
outside its choices or outside its :class:`Range` is an error naming the key. CLI options
override keys by their dotted name (``kernel.name``); an option's bad value is reported under the
option's name. ``configs/README.md`` documents every key and its range; a test keeps it in sync.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import reprlib
import types
import typing
from typing import Any, Literal, Union

import yaml

from .errors import InputError
from .io.readers import decode_utf8

MAX_CONFIG_BYTES = 1 << 20  # a config is a page of keys; a larger file is not one (and YAML parses slowly)
MAX_CONFIG_DEPTH = 32  # the deepest config nests 3 levels; PyYAML's composer recurses once per level
_short = reprlib.Repr()  # values in messages: a YAML alias can make a small file an exponentially large value
_short.maxstring, _short.maxother, _short.maxlevel, _short.maxlist, _short.maxdict = 60, 60, 2, 4, 4


@dataclasses.dataclass(frozen=True)
class Range:
    """The values a number may take: ``low <= x <= high`` (``<`` on an open side; None = no bound).

    Config keys declare theirs with ``option(..., bounds=Range(...))`` and CLI options that set no key
    use the same class (``kcooc.cli.options.Bounded``), so one definition checks, reports and documents a bound.
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        if isinstance(value, float) and not math.isfinite(value):
            return False
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    def __str__(self) -> str:
        """``in [1, 2^20]``, ``in (0, 1]``, ``>= 0``: as configs/README.md and the messages show it."""
        if self.high is None:
            return f"{'>' if self.low_open else '>='} {_number(self.low)}" if self.low is not None else "finite"
        if self.low is None:
            return f"{'<' if self.high_open else '<='} {_number(self.high)}"
        return (f"in {'(' if self.low_open else '['}{_number(self.low)}, {_number(self.high)}"
                f"{')' if self.high_open else ']'}")

    def problem(self, value: float) -> str | None:
        """What is wrong with ``value`` (``expected an integer in [1, 8], got 0``), or None if it is in range."""
        if value in self:
            return None
        return f"expected {'an integer' if isinstance(value, int) else 'a number'} {self}, got {_number(value)}"


def _number(value: float) -> str:
    """A bound as written in docs and messages: powers of two as 2^k, other ints plainly, floats by %g."""
    if isinstance(value, int) and value > 1 << 16 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    if isinstance(value, int) and abs(value) >= 1 << 64:  # Python refuses to print ints of over 4,300 digits
        return f"{'-' if value < 0 else ''}an integer of {abs(value).bit_length()} bits"
    return str(value) if isinstance(value, int) else f"{value:g}"


class ConfigValueError(InputError):
    """A config value of the wrong type or outside its range; ``key`` is its dotted name."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"config key {key!r}: {problem}")
        self.key, self.problem = key, problem


def option(default: Any, doc: str, bounds: Range | None = None, **kwargs) -> Any:
    """A config field with its documentation (shown by ``configs/README.md``) and, for a number
    (or a list of numbers), the :class:`Range` its values must lie in."""
    metadata = {"doc": doc, "range": bounds}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=metadata, **kwargs)
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


SEED = Range(0, 2**32 - 1)  # what every seeded generator (numpy, numba) accepts


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
                raise ConfigValueError(key, f"expected a finite number, got {value!r}")
            return float(value)
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(value, tp):
        return value
    raise ConfigValueError(key, f"expected {_type_name(tp)}, got {_short.repr(value)}")


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
    obj = cls(**{k: _coerce(v, hints[k], prefix + k) for k, v in data.items()})
    check(obj, prefix)
    return obj


def check(obj: Any, prefix: str = "") -> None:
    """Check a config section as :func:`from_dict` does (also one built in Python): every number of a
    field within the field's :class:`Range`, then the section's own ``validate()`` (rules across keys)."""
    for f in dataclasses.fields(obj):
        if f.metadata.get("range"):
            _check_range(getattr(obj, f.name), f.metadata["range"], prefix + f.name)
    validate = getattr(obj, "validate", None)
    if validate:
        validate()


def _check_range(value: Any, bounds: Range, key: str) -> None:
    """Check a number, or each number of a list, against ``bounds`` (text choices and null pass)."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_range(item, bounds, f"{key}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value not in bounds:
        raise ConfigValueError(key, bounds.problem(value))


def range_of(cls: type, key: str) -> Range:
    """The :class:`Range` of ``cls``'s key ``key``, for a CLI option that sets it outside :func:`load`."""
    return next(f for f in dataclasses.fields(cls) if f.name == key).metadata["range"]


NULL = object()  # an override value that sets a key to null (None means "no override")


class _DepthLimitedLoader(yaml.SafeLoader):
    """``yaml.safe_load``'s loader, refusing documents nested deeper than MAX_CONFIG_DEPTH levels."""

    depth = 0

    def compose_node(self, parent, index):
        if self.depth >= MAX_CONFIG_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_CONFIG_DEPTH} levels deep",
                                              self.peek_event().start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def read_yaml(path: str) -> Any:
    """The YAML document of the config file ``path``: UTF-8, at most MAX_CONFIG_BYTES, nested at most
    MAX_CONFIG_DEPTH levels; anything else is an InputError naming the file (and line)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read config: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise InputError(f"{path}: a config is at most {MAX_CONFIG_BYTES >> 20} MiB; this file is larger")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{path}: is UTF-16 text; a config must be UTF-8")
    text = decode_utf8(raw, path).removeprefix("\ufeff")
    try:
        return yaml.load(text, Loader=_DepthLimitedLoader)  # noqa: S506 - a SafeLoader
    except (yaml.YAMLError, ValueError, OverflowError) as exc:  # ValueError: e.g. an int of over 4,300 digits
        raise InputError(f"{path}: invalid YAML: {exc}".replace("\n", " ")) from None


def load(cls: type, path: str | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """Read YAML ``path`` (optional) into ``cls`` and apply dotted-key ``overrides``.

    A bad value that an override set raises a :class:`ConfigValueError` naming its dotted ``key`` (the
    command line reports its ``problem`` under the option that set it); a bad value in the file names the file.
    """
    data: dict = {}
    if path:
        data = read_yaml(path)
        data = {} if data is None else data
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
    except ConfigValueError as exc:
        key = exc.key.split("[")[0]
        if overrides and overrides.get(key) is not None:
            raise ConfigValueError(key, exc.problem) from None
        raise InputError(f"{path}: {exc}" if path else str(exc)) from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}" if path else str(exc)) from None


def to_dict(obj: Any) -> dict:
    return dataclasses.asdict(obj)


def dump(obj: Any) -> str:
    return yaml.safe_dump(to_dict(obj), sort_keys=False, allow_unicode=True)


def documented_keys(cls: type, prefix: str = "") -> list[tuple[str, str, str, Any]]:
    """(dotted key, type and range, doc, default) for every key of ``cls``, nested sections expanded."""
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
        bounds = f.metadata.get("range")
        rows.append((prefix + f.name, _type_name(tp) + (f", {bounds}" if bounds else ""), f.metadata.get("doc", ""),
                     default))
    return rows


# -- sections shared by every command that reads sentence pairs -------------------------------------


@dataclasses.dataclass
class InputConfig:
    src_col: Union[int, str] = option(1, "x (source/context) column: 1-based index, or a header name with header: true")
    tgt_col: Union[int, str] = option(2, "y (target/response) column: 1-based index, or a header name")
    header: bool = option(False, "the first line is a header naming the columns")
    on_error: Literal["fail", "skip"] = option("fail",
                                               "malformed line: stop with file:line (fail) or skip and count it (skip)")
    block_size: int = option(8192, "pairs encoded and processed per block (memory ~ one block)", Range(1, 1 << 24))
    max_line_bytes: int = option(1 << 20, "lines longer than this are malformed", Range(1, 1 << 30))


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
    dim: Union[int, None] = option(None, "wordllama: embedding size (64, 128, 256, 512 or 1024; default 256)",
                                   Range(1, 1 << 16))
    n_features: int = option(1024, "hashing: number of hashed columns", Range(1, 1 << 20))
    word_ngrams: int = option(2, "hashing: word n-grams of order 1..word_ngrams (0 = none)", Range(0, 16))
    char_ngrams: list[int] = option([], "hashing: character n-gram orders inside tokens, e.g. [2, 3] for Japanese",
                                    Range(1, 32))
