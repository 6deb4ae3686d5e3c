"""The shapes of the ids a call carries (request, player, operator and brand, round, table
round, API key, session token) and of a table nickname: each checked here, before any database
or wallet is asked, and the player key that shards a player's data."""

from __future__ import annotations

import base64
import re
import unicodedata

from rgs.service.errors import InvalidRequest

_REQUEST_ID = re.compile(r"^[\x21-\x7e]{1,64}$")
_PLAYER_ID = re.compile(r"^[A-Za-z0-9._@:-]{1,64}$")
_ROUND_ID = re.compile(r"^[0-9a-f]{32}$")
_TABLE_ROUND_ID = re.compile(r"[0-9a-f]{24}\Z")
_TENANT_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_DEMO_PLAYER_ID = re.compile(r"^demo~[0-9a-f]{24}\Z")
DEMO_PREFIX = "demo~"
"""How a demo player's id begins (no operator's player id can contain ``~``)."""
TENANT_ID_PATTERN = _TENANT_ID.pattern
"""Operator and brand ids: lower-case letters, digits and dashes, 1-63 characters."""
_API_KEY = re.compile(r"^[\x21-\x7e]{8,256}$")
_SESSION_TOKEN = re.compile(r"^s1\.[A-Za-z0-9_-]{4,200}\.[A-Za-z0-9_-]{16,128}$")


#: The longest nickname a player may have at a table.
NICKNAME_CHARS = 20
_NICKNAME_PUNCTUATION = frozenset(" ._-")


def check_nickname(nickname: str) -> str:
    r"""Return ``nickname`` if a table may show it: empty (a pseudonym is shown), or 1-20
    letters, digits, spaces, ``.``, ``_`` and ``-``, not starting or ending with a space; never
    a control, format or direction character (no one can be made to look like another by
    text that turns around).

    >>> check_nickname("Lucky Ann")
    'Lucky Ann'
    >>> check_nickname("Ann\u202eeb")
    Traceback (most recent call last):
    ...
    rgs.service.errors.InvalidRequest: nickname: 1-20 letters, digits, spaces, '.', '_' or '-'
    """
    if not nickname:
        return nickname
    ok = (len(nickname) <= NICKNAME_CHARS and nickname == nickname.strip()
          and all(c in _NICKNAME_PUNCTUATION or unicodedata.category(c)[0] in "LN"
                  for c in nickname))
    if not ok:
        raise InvalidRequest("nickname: 1-20 letters, digits, spaces, '.', '_' or '-'",
                             reason="INVALID_NICKNAME", field="nickname")
    return nickname


def check_request_id(request_id: str) -> str:
    """Return ``request_id`` if it is 1-64 printable ASCII characters, else raise."""
    if not _REQUEST_ID.match(request_id):
        raise InvalidRequest("request_id must be 1-64 printable ASCII characters",
                             reason="INVALID_REQUEST_ID")
    return request_id


def check_player_id(player_id: str) -> str:
    """Return ``player_id`` if it is 1-64 letters, digits or ``._@:-``, else raise."""
    if not _PLAYER_ID.match(player_id):
        raise InvalidRequest("player_id must be 1-64 letters, digits or ._@:-",
                             reason="INVALID_PLAYER_ID")
    return player_id


def is_api_key(key: str) -> bool:
    """True when ``key`` has the shape of an operator API key (8-256 printable ASCII characters
    without spaces): anything else is refused before the database is asked."""
    return bool(_API_KEY.match(key))


def token_player_key(token: str) -> str | None:
    """The player key a session token's public prefix names, or None when the token does not
    have the shape of one this server issues (checked before any database call: a NUL byte or
    a megabyte of text never reaches PostgreSQL)."""
    if not _SESSION_TOKEN.match(token):
        return None
    key = decode_token_prefix(token.split(".")[1])
    if key is None:
        return None
    operator, sep, player = key.partition("/")
    if not sep or not _TENANT_ID.match(operator) or not (
            _PLAYER_ID.match(player) or is_demo_player(player)):
        return None
    return key


def is_demo_player(player_id: str) -> bool:
    """True for the id of a demo player (:mod:`rgs.service.demo`): virtual money, no wallet."""
    return bool(_DEMO_PLAYER_ID.match(player_id))


def is_tenant_id(value: str) -> bool:
    """True when ``value`` has the shape of an operator or brand id."""
    return bool(_TENANT_ID.match(value))


def is_round_id(round_id: str) -> bool:
    """True when ``round_id`` has the shape of a round id (32 lower-case hex digits)."""
    return bool(_ROUND_ID.match(round_id))


def is_table_round_id(round_id: str) -> bool:
    """True when ``round_id`` has the shape of a shared table's round id (24 lower-case hex
    digits: its money ids must fit a wallet's 64 characters)."""
    return bool(_TABLE_ROUND_ID.match(round_id))


def player_key(operator_id: str, player_id: str) -> str:
    """The shard key of a player: unique across operators, leads every primary key."""
    return f"{operator_id}/{player_id}"


def encode_token_prefix(key: str) -> str:
    """The public part of a session token that locates its shard (the player key)."""
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def decode_token_prefix(prefix: str) -> str | None:
    """Inverse of :func:`encode_token_prefix`; None when malformed."""
    try:
        raw = base64.urlsafe_b64decode(prefix + "=" * (-len(prefix) % 4))
        return raw.decode()
    except (ValueError, UnicodeDecodeError):
        return None
