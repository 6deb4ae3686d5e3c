"""The tables of errors are true: every reason docs/api.md (and the studio guide's short table)
lists is under the gRPC code the server answers it with, and every reason the server raises is
in api.md's table under that code (issue 22: INVALID_SEAT was listed under UNAUTHENTICATED, the
server answers INVALID_ARGUMENT).

What the server raises is read from its source: every ``ServiceError`` subclass built with a
literal ``reason`` (or none: its default reason), the engine-to-service table, the refusals the
API layer sends with a status code of its own, and the port errors :func:`classify` maps; each
class's code is the one :data:`rgs.api.errors.ERROR_TABLE` gives it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

import grpc
import pytest

from rgs.api.errors import ERROR_TABLE, classify
from rgs.api.fields import reason_for
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.wallet.v1 import wallet_pb2
from rgs.service import errors as service_errors
from rgs.service.money import PLAYER_REASONS
from rgs.service.ports import (
    CardSourceUnavailable,
    JournalBusy,
    JournalRejected,
    JournalUnavailable,
)
from rgs.wallet.grpc_wallet import _RETRYABLE_REASONS as RETRYABLE_WALLET_REASONS

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "services" / "rgs"
_REASON = re.compile(r"^[A-Z][A-Z0-9_]+$")

#: Where the server answers a reason under a code the table does not give it, each with why it
#: stands for now. Every entry must still be true (the test says when one can go).
KNOWN_DEVIATIONS: set[tuple[str, str]] = set()


def _service_errors() -> dict[str, type[service_errors.ServiceError]]:
    found: dict[str, type[service_errors.ServiceError]] = {}
    todo = [service_errors.ServiceError]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    del found["ServiceError"]
    return found


ERRORS = _service_errors()


def _code_of(cls: type[BaseException]) -> str:
    return next(code.name for row, code in ERROR_TABLE if issubclass(cls, row))


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _strings(tree: ast.Module) -> dict[str, str]:
    """The module's constants of the form ``NAME = "TEXT"``."""
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            out[node.targets[0].id] = node.value.value
    return out


def _literal(node: ast.expr | None, consts: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        value: str | None = node.value
    elif isinstance(node, ast.Name):
        value = consts.get(node.id)
    else:
        return None
    return value if value is not None and _REASON.match(value) else None


def _modules() -> list[tuple[ast.Module, dict[str, str]]]:
    """Every source module with the string constants its names may refer to: its own, then
    any other module's (an imported constant) whose name means one value everywhere."""
    trees = [ast.parse(p.read_text("utf-8")) for p in sorted(SOURCE.rglob("*.py"))
             if "generated" not in p.parts]
    values: dict[str, set[str]] = defaultdict(set)
    for tree in trees:
        for name, value in _strings(tree).items():
            values[name].add(value)
    shared = {name: next(iter(v)) for name, v in values.items() if len(v) == 1}
    return [(tree, {**shared, **_strings(tree)}) for tree in trees]


def _raised_in(tree: ast.Module, consts: dict[str, str], out: dict[str, set[str]]) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in ERRORS:
            cls = ERRORS[_name(node.func)]
            given = next((k.value for k in node.keywords if k.arg == "reason"), None)
            reason = (cls.default_reason if given is None and len(node.args) < 2
                      else _literal(given, consts))
            if reason is not None:
                out[reason].add(_code_of(cls))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            # A refusal sent with a code of its own: (grpc.StatusCode.X, "REASON", ...).
            code, reason = node.args[0], _literal(node.args[1], consts)
            if (reason is not None and isinstance(code, ast.Attribute)
                    and _name(code.value) == "StatusCode"):
                out[reason].add(code.attr)
        elif isinstance(node, ast.Tuple):
            # The engine's errors: (EngineError class, ServiceError class, "REASON").
            classes = [ERRORS[n] for e in node.elts if (n := _name(e)) in ERRORS]
            reasons = [r for e in node.elts if (r := _literal(e, consts))]
            if len(classes) == 1 and len(reasons) == 1:
                out[reasons[0]].add(_code_of(classes[0]))


def raised() -> dict[str, set[str]]:
    """reason -> the gRPC codes (names) the server answers it with (a copy)."""
    return {reason: set(codes) for reason, codes in _raised().items()}


@functools.cache
def _raised() -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for tree, consts in _modules():
        _raised_in(tree, consts, out)
    for exc in (JournalBusy("x", same_request=True), JournalBusy("x", same_request=False),
                JournalRejected("x"), JournalUnavailable("x"), CardSourceUnavailable("x"),
                RuntimeError("x")):
        code, reason, _ = classify(exc)
        out[reason].add(code.name)
    return out


def passed_on() -> dict[str, set[str]]:
    """Reasons that are not literals of the server: a string field's INVALID_<FIELD> (every
    string field of every request), and the wallet contract's final refusals, passed on as
    FAILED_PRECONDITION under the RGS's own name for each (:mod:`rgs.service.money`)."""
    out: dict[str, set[str]] = defaultdict(set)
    todo = [m.input_type for module, name in ((bj, "BlackjackService"),
                                              (op, "OperatorService"), (tb, "TableService"))
            for m in module.DESCRIPTOR.services_by_name[name].methods]
    while todo:
        message = todo.pop()
        for f in message.fields:
            if f.type == f.TYPE_STRING:
                out[reason_for(f.name)].add("INVALID_ARGUMENT")
            elif f.type == f.TYPE_MESSAGE:
                todo.append(f.message_type)
    for value in wallet_pb2.ErrorReason.DESCRIPTOR.values:
        reason = value.name.removeprefix("ERROR_REASON_")
        if reason != "UNSPECIFIED" and reason not in RETRYABLE_WALLET_REASONS:
            out[PLAYER_REASONS.get(reason, reason)].add("FAILED_PRECONDITION")
    return out


#: The pages with a table of errors, and each table's header line.
TABLES = {"api.md": "| code | reason | when | what the client does |",
          "studio-guide.md": "| code | reasons | what the client does |"}


def documented(page: str = "api.md") -> set[tuple[str, str]]:
    """(code, reason) of every row of a page's error table."""
    lines = (ROOT / "docs" / page).read_text("utf-8").splitlines()
    start = lines.index(TABLES[page])
    out: set[tuple[str, str]] = set()
    code = ""
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        code = cells[0].strip("`").upper() or code
        assert code in grpc.StatusCode.__members__, line
        for reason in re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[1]):
            out.add((code, reason))
    return out


@pytest.mark.parametrize("page", sorted(TABLES))
def test_every_documented_reason_is_under_the_code_the_server_answers_it_with(page: str
                                                                              ) -> None:
    server = raised()
    for reason, codes in passed_on().items():
        server.setdefault(reason, set()).update(codes)
    misplaced = sorted(f"{reason} is listed under {code}, the server answers "
                       f"{' or '.join(sorted(server[reason]))}"
                       for code, reason in documented(page)
                       if reason in server and code not in server[reason])
    assert misplaced == []


def test_every_reason_the_server_answers_is_in_the_table_under_its_code() -> None:
    rows = documented()
    missing = sorted(f"{code} / {reason}" for reason, codes in raised().items()
                     for code in codes
                     if (code, reason) not in rows and (code, reason) not in KNOWN_DEVIATIONS)
    assert missing == []
    server = raised()
    gone = sorted(d for d in KNOWN_DEVIATIONS if d[0] not in server.get(d[1], set()))
    assert gone == [], "fixed in the code: take it out of KNOWN_DEVIATIONS"


def test_the_scan_finds_what_the_table_names() -> None:
    """Keeps the first test honest: a reason neither raised nor passed on is not checked."""
    known = {**raised(), **passed_on()}
    assert sorted(reason for _, reason in documented() if reason not in known) == []
    server = raised()
    assert server["INVALID_SEAT"] == {"INVALID_ARGUMENT"}  # the row issue 22 found
    assert server["STALE_SEQ"] == {"FAILED_PRECONDITION"}
    assert server["MALFORMED_REQUEST"] == {"INVALID_ARGUMENT"}
    assert server["SERVER_SHUTTING_DOWN"] == {"UNAVAILABLE"}
    assert server["PLAYER_BUSY"] == {"ABORTED"}
