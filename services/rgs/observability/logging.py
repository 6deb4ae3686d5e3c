"""Structured JSON logs with the trace id and round id, and redaction of secrets.

One line of JSON per record: ``ts``, ``level``, ``logger``, ``message``, ``trace_id``,
``span_id``, ``round_id`` when a call is about a round, any ``extra=`` fields, and ``exc`` for
exceptions. The :class:`RedactionFilter` runs before formatting: session tokens, API keys,
bearer credentials, passwords in database URLs and the dealer's hole card must never reach a
log line (the hole card is the one thing a reader of the logs could use to beat a live round).
"""

from __future__ import annotations

import contextvars
import logging
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final, TextIO

import orjson

from rgs.observability.tracing import current_ids

REDACTED: Final = "[REDACTED]"
"""What a secret is replaced with."""

#: Field names (any case, ``-`` or ``_``) whose values are secrets wherever they appear.
SENSITIVE_KEYS: Final = frozenset({
    "authorization", "token", "session_token", "sessiontoken", "api_key", "apikey", "key",
    "operator_key", "wallet_api_key", "secret", "password", "passwd", "database_url",
    "dsn", "hole_card", "holecard", "hole", "cookie", "x_api_key",
})

_TEXT_PATTERNS: Final = (
    # "Bearer abc", "Basic abc" credentials wherever they appear.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+"), r"\1 " + REDACTED),
    # key=value / key: value / "key": "value" for the sensitive names.
    (re.compile(r"(?i)(['\"]?\b(?:authorization|session[_-]?token|token|api[_-]?key|"
                r"operator[_-]?key|secret|password|passwd|hole[_-]?card)['\"]?\s*[=:]\s*)"
                r"(['\"]?)[^'\"\s,;}\]]+\2"),
     r"\1\2" + REDACTED + r"\2"),
    # A face-down card in an event's repr or JSON: CardDealt(card='KS', ..., face_down=True).
    (re.compile(r"(?i)(['\"]?card['\"]?\s*[=:]\s*)(['\"]?)[0-9TJQKA][SHDC]\2"
                r"(?=[^)}]*face_down['\"]?\s*[=:]\s*(?:True|true|1))"),
     r"\1\2" + REDACTED + r"\2"),
    # Credentials inside URLs: scheme://user:password@host.
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]+:)[^@\s]+@"), r"\1" + REDACTED + "@"),
)

ROUND_ID: Final = contextvars.ContextVar[str]("rgs_round_id", default="")
"""The round the current call is about (set by the server interceptor; "" when none)."""

#: Attributes every LogRecord has; anything else came in through ``extra=``.
_STANDARD_ATTRS: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def _norm(key: str) -> str:
    return key.lower().replace("-", "_")


#: Every pattern above needs one of these words (any case) or ``://``: text without any of them
#: is returned after a few substring scans instead of four substitutions (most log values are
#: method names, codes and ids). ``key`` stands for every ``api key`` and ``operator key`` spelling.
_MAYBE_SECRET: Final = ("bearer", "basic", "authorization", "token", "key", "secret", "passw",
                        "hole", "card", "://")


def redact_text(text: str) -> str:
    """``text`` with bearer credentials, ``key=value`` secrets and URL passwords replaced."""
    lowered = text.lower()
    if not any(word in lowered for word in _MAYBE_SECRET):
        return text
    for pattern, replacement in _TEXT_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def mask_url(url: str) -> str:
    """``url`` with its password replaced (of its ``user:password@`` part, or a ``password=``
    parameter), for messages and logs.

    >>> mask_url("postgresql://rgs:s3cret@db:5432/rgs")
    'postgresql://rgs:[REDACTED]@db:5432/rgs'
    >>> mask_url("postgresql://rgs@db:5432/rgs?password=s3cret")
    'postgresql://rgs@db:5432/rgs?password=[REDACTED]'
    """
    return redact_text(url)


def redact_value(value: Any, key: str = "") -> Any:
    """A copy of ``value`` safe to log: sensitive keys blanked, strings scrubbed, recursively."""
    if key and _norm(key) in SENSITIVE_KEYS:
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bytes):
        return redact_text(value.decode("utf-8", "replace"))
    if isinstance(value, Mapping):
        out = {str(k): redact_value(v, str(k)) for k, v in value.items()}
        if value.get("face_down") and "card" in out:  # a dealt hole card
            out["card"] = REDACTED
        return out
    if isinstance(value, list | tuple | set | frozenset):
        if len(value) == 2 and isinstance(next(iter(value)), str) and isinstance(value, tuple):
            k, v = value  # a (key, value) metadata pair
            return (k, redact_value(v, k))
        return [redact_value(v) for v in value]
    return value


class RedactionFilter(logging.Filter):
    """Scrubs secrets from a record's message, arguments and extra fields before any handler
    formats it. Install it on handlers (not loggers) so records from every logger pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact in place; never drops a record."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed format string: log it as given
            message = str(record.msg)
        record.msg = redact_text(message)
        record.args = None
        for name, value in list(vars(record).items()):
            if name not in _STANDARD_ATTRS:
                setattr(record, name, redact_value(value, name))
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = redact_text(
                logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line, with the current trace and round ids."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        trace_id, span_id = current_ids()
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            # Which worker process of a replica (``rgs serve --workers``) wrote the line.
            "pid": record.process,
        }
        if trace_id:
            out["trace_id"] = trace_id
            out["span_id"] = span_id
        round_id = getattr(record, "round_id", "") or ROUND_ID.get()
        if round_id:
            out["round_id"] = round_id
        for name, value in vars(record).items():
            if name not in _STANDARD_ATTRS and name not in out:
                out[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exc"] = redact_text(record.exc_text)
        return orjson.dumps(out, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(*, level: str | int = "INFO", json_lines: bool = True,
                      stream: TextIO | None = None) -> logging.Handler:
    """Replace the root handlers with one redacting handler (JSON lines unless told otherwise);
    returns the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(RedactionFilter())
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s"))
    # No line shows a record's source file and line: skip the stack walk that finds them
    # (the logging module's documented switch; a sixth of a call's log line).
    logging._srcfile = None
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
