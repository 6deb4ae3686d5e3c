"""Every string field of every request is checked here, at the edge, before anything reaches the
use cases, the database or a log: a length bound per field and no NUL byte.

Protobuf parsing already refuses invalid UTF-8 in a string field (the request is then
``MALFORMED_REQUEST``); what it lets through is a NUL byte, which PostgreSQL cannot store, and any
length up to the message size limit, which would otherwise travel into error messages, status
trailers and log lines. A refusal is INVALID_ARGUMENT with the reason ``INVALID_<FIELD>`` and the
field's name in the ErrorInfo metadata; the message quotes no input.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from rgs.service.errors import InvalidRequest

LIMITS: Mapping[str, int] = MappingProxyType({
    "request_id": 64, "player_id": 64, "brand_id": 64, "variant_id": 64, "round_id": 64,
    "currency": 8, "reason": 200, "page_token": 256, "forced_cards": 4,
    "lobby_url": 2048, "cashier_url": 2048,
})
"""Most characters each named string field may hold (the use cases check the exact shapes)."""

DEFAULT_LIMIT = 256
"""The bound of a string field not named in :data:`LIMITS` (a field added later is bounded too)."""


def reason_for(field: str) -> str:
    """The ErrorInfo reason of a refused field.

    >>> reason_for("variant_id")
    'INVALID_VARIANT_ID'
    """
    return f"INVALID_{field.upper()}"


def check_strings(message: Message, path: str = "") -> None:
    """Refuse ``message`` when one of its string fields (nested and repeated ones too) is longer
    than its bound or holds a NUL byte."""
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        if field.type == FieldDescriptor.TYPE_STRING:
            for text in (value if _repeated(field) else (value,)):
                _check(field.name, name, text)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for sub in (value if _repeated(field) else (value,)):
                check_strings(sub, f"{name}.")


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _check(short: str, name: str, text: str) -> None:
    limit = LIMITS.get(short, DEFAULT_LIMIT)
    if len(text) > limit:
        raise InvalidRequest(f"{name} is longer than {limit} characters ({len(text)})",
                             reason=reason_for(short), field=name)
    if "\x00" in text:
        raise InvalidRequest(f"{name} holds a NUL character", reason=reason_for(short),
                             field=name)
