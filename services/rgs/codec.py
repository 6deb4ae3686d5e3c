"""JSON codec for the project's values: engine events, views and other frozen dataclasses.

A neutral module, below every layer that uses it: the journal adapters store events with it,
the service stores idempotent answers with it, the API renders round histories with it. The
journal stores every event as a JSON object with its ``kind`` (the event class in
snake_case) and its fields. Encoding and decoding are driven by the dataclasses' type hints, so a
new event type needs no codec change; ``tests/unit/service/test_codec.py`` round-trips every one.

Money stays integer; :class:`~fractions.Fraction` is written as ``"n/d"`` so nothing ever passes
through a float.

Two text forms: the stored form (:func:`encode_event`, :func:`encode_value`) is written by orjson,
whose output any JSON reader decodes to the same values; the fingerprint form
(:func:`canonical_json`) stays the standard library's exact bytes (ASCII escapes, its float
spelling), because fingerprints stored by earlier releases are compared with it.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from datetime import datetime
from fractions import Fraction
from functools import cache
from typing import Any, TypeVar

import orjson

from rgs.engine import model as engine_model
from rgs.engine.model import Event

T = TypeVar("T")


class CodecError(ValueError):
    """A stored value cannot be decoded (unknown kind, missing field, wrong type)."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def event_types() -> dict[str, type[Event]]:
    """Every concrete engine event type by its journal kind (``CardDealt`` → ``card_dealt``)."""
    out: dict[str, type[Event]] = {}
    for obj in vars(engine_model).values():
        if isinstance(obj, type) and issubclass(obj, Event) and obj is not Event:
            out[_snake(obj.__name__)] = obj
    return out


def event_kind(event: Event) -> str:
    """The journal kind of an event."""
    return _snake(type(event).__name__)


#: The field names of each dataclass met so far (``dataclasses.fields`` per value costs more than
#: the rest of the encoding).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def to_jsonable(value: object) -> Any:
    """Turn a dataclass value (recursively) into JSON-compatible data."""
    cls = type(value)
    if cls is str or cls is int or cls is bool or value is None:  # the most common, first
        return value
    names = _FIELD_NAMES.get(cls)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return {name: to_jsonable(getattr(value, name)) for name in names}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, dict):
        return [[to_jsonable(k), to_jsonable(v)] for k, v in value.items()]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise CodecError(f"cannot encode {type(value).__name__}")


@cache
def _dataclass_fields(tp: Any) -> tuple[tuple[str, Any], ...] | None:
    """(name, type) of each field of a dataclass type; None for any other type."""
    if not (isinstance(tp, type) and dataclasses.is_dataclass(tp)):
        return None
    hints = typing.get_type_hints(tp)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(tp))


def from_jsonable(tp: Any, data: Any) -> Any:
    """Build a value of type ``tp`` from :func:`to_jsonable` output."""
    return _decoder(tp)(data)


Decoder = typing.Callable[[Any], Any]

#: A decoder per type met so far: the type hints are read once, not for every value (a table's
#: state with a hundred Bet Behinds is a few thousand values).
_DECODERS: dict[Any, Decoder] = {}


def _decoder(tp: Any) -> Decoder:
    found = _DECODERS.get(tp)
    if found is None:
        found = _DECODERS[tp] = _compile(tp)
    return found


def _int(data: Any) -> Any:
    if not isinstance(data, int) or isinstance(data, bool):
        raise CodecError(f"expected an integer, got {data!r}")
    return data


def _str(data: Any) -> Any:
    if not isinstance(data, str):
        raise CodecError(f"expected a string, got {data!r}")
    return data


def _bool(data: Any) -> Any:
    if not isinstance(data, bool):
        raise CodecError(f"expected a boolean, got {data!r}")
    return data


def _fraction(data: Any) -> Any:
    if not isinstance(data, str):
        raise CodecError(f"a fraction is stored as 'n/d', got {data!r}")
    return Fraction(data)


def _datetime(data: Any) -> Any:
    if not isinstance(data, str):
        raise CodecError(f"a time is stored as ISO 8601 text, got {data!r}")
    return datetime.fromisoformat(data)


def _compile(tp: Any) -> Decoder:
    """The decoder of ``tp``; the decoders of its parts are looked up when first used (a type
    may refer to itself)."""
    if tp is int:
        return _int
    if tp is str:
        return _str
    fields = _dataclass_fields(tp)
    if fields is not None:
        return _dataclass_decoder(tp, fields)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(tp, args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            return lambda data: tuple(map(_decoder(item), _list(data)))
        return lambda data: tuple(_decoder(a)(v) for a, v in zip(args, _list(data),
                                                                 strict=True))
    if origin is frozenset:
        (arg,) = args
        return lambda data: frozenset(map(_decoder(arg), _list(data)))
    if origin is dict:
        k_tp, v_tp = args
        return lambda data: {_decoder(k_tp)(k): _decoder(v_tp)(v) for k, v in _list(data)}
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return tp
        if tp is Fraction:
            return _fraction
        if tp is datetime:
            return _datetime
        if tp is bool:
            return _bool

    def unknown(data: Any) -> Any:
        raise CodecError(f"cannot decode {tp!r}")
    return unknown


def _dataclass_decoder(tp: Any, fields: tuple[tuple[str, Any], ...]) -> Decoder:
    parts: list[tuple[str, Decoder]] = []

    def decode(data: Any) -> Any:
        if not isinstance(data, dict):
            raise CodecError(f"{tp.__name__} needs an object, got {data!r}")
        if not parts:
            parts.extend((name, _decoder(hint)) for name, hint in fields)
        return tp(**{name: dec(data[name]) for name, dec in parts if name in data})
    return decode


def _union_decoder(tp: Any, args: tuple[Any, ...]) -> Decoder:
    optional = type(None) in args
    members = [a for a in args if a is not type(None)]

    def decode(data: Any) -> Any:
        if data is None and optional:
            return None
        for arg in members:
            try:
                return _decoder(arg)(data)
            except (CodecError, TypeError, ValueError, KeyError):
                continue
        raise CodecError(f"{data!r} matches none of {tp}")
    return decode


def _list(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise CodecError(f"expected a list, got {data!r}")
    return data


def _dumps(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()


def canonical_json(data: Any) -> str:
    r"""The fingerprint form of JSON-compatible ``data``: sorted keys, no spaces, ASCII escapes,
    the standard library's spelling of numbers. Never change it: stored fingerprints are compared
    with it across releases.

    >>> print(canonical_json({"b": 1e-05, "a": "\u00e9"}))
    {"a":"\u00e9","b":1e-05}
    """
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def encode_event(event: Event) -> str:
    """The JSON text of an event's fields (its kind is stored beside it)."""
    return _dumps(to_jsonable(event))


def decode_event(kind: str, payload: str | dict[str, Any]) -> Event:
    """Rebuild an event from its kind and JSON fields."""
    cls = event_types().get(kind)
    if cls is None:
        raise CodecError(f"unknown event kind {kind!r}")
    data = orjson.loads(payload) if isinstance(payload, str) else payload
    try:
        value = from_jsonable(cls, data)
    except (KeyError, TypeError) as exc:
        raise CodecError(f"cannot decode {kind}: {exc}") from exc
    if not isinstance(value, Event):  # pragma: no cover - from_jsonable built cls
        raise CodecError(f"{kind} did not decode to an event")
    return value


def encode_value(value: object) -> str:
    """The JSON text of any dataclass value."""
    return _dumps(to_jsonable(value))


def decode_value(tp: type[T], text: str) -> T:
    """Rebuild a dataclass value of type ``tp`` from :func:`encode_value` text."""
    try:
        value = from_jsonable(tp, orjson.loads(text))
    except (KeyError, TypeError, orjson.JSONDecodeError) as exc:
        raise CodecError(f"cannot decode {tp.__name__}: {exc}") from exc
    if not isinstance(value, tp):  # pragma: no cover
        raise CodecError(f"decoded value is not a {tp.__name__}")
    return value
