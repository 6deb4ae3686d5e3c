"""The grpcurl examples in the README and docs/ name real methods and read fields the way grpcurl
prints them: with the proto's own field names (``session_token``), not JSON camelCase
(``sessionToken``, which jq turns into ``null``).
"""

from __future__ import annotations

import re
from pathlib import Path

from rgs.cli.service import HOW_TO_PLAY

ROOT = Path(__file__).resolve().parents[2]
JQ_PATH = re.compile(r"\bjq -r '?(\.[A-Za-z_][\w.\[\]]*)")
METHOD = re.compile(r"\b(rgs(?:\.\w+)+)\.(\w+Service)/(\w+)\b")


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _proto_names() -> tuple[set[str], set[str]]:
    """Every field name and every ``package.Service/Method`` declared under proto/."""
    fields: set[str] = set()
    methods: set[str] = set()
    for proto in (ROOT / "proto").rglob("*.proto"):
        text = proto.read_text()
        fields |= set(re.findall(r"^\s*(?:optional |repeated )?[\w.<>, ]+ (\w+) = \d+",
                                 text, re.M))
        package = re.search(r"^package ([\w.]+);", text, re.M)
        assert package, proto
        for service, body in re.findall(r"^service (\w+) \{(.*?)^\}", text, re.M | re.S):
            for rpc in re.findall(r"^\s*rpc (\w+)\(", body, re.M):
                methods.add(f"{package[1]}.{service}/{rpc}")
    return fields, methods


def test_jq_paths_in_grpcurl_examples_use_the_protos_field_names() -> None:
    fields, _ = _proto_names()
    assert "session_token" in fields
    seen, wrong = 0, []
    for doc in _documents():
        for path in JQ_PATH.findall(doc.read_text()):
            seen += 1
            for name in re.split(r"[.\[\]]+", path):
                if name and not name.isdigit() and name not in fields:
                    wrong.append(f"{doc.relative_to(ROOT)}: jq {path} ({name} is no proto field)")
    assert seen >= 1  # the README's example is still there to check
    assert wrong == []


def test_grpcurl_examples_call_methods_the_protos_declare() -> None:
    _, methods = _proto_names()
    seen, unknown = 0, []
    for doc in _documents():
        for package, service, rpc in METHOD.findall(doc.read_text()):
            seen += 1
            if f"{package}.{service}/{rpc}" not in methods:
                unknown.append(f"{doc.relative_to(ROOT)}: {package}.{service}/{rpc}")
    assert seen >= 3
    assert unknown == []


def test_the_field_check_would_have_caught_the_camel_case_token() -> None:
    fields, _ = _proto_names()
    (path,) = JQ_PATH.findall("... CreateSession | jq -r .sessionToken)")
    assert path.lstrip(".") not in fields


def test_grpcurl_examples_take_a_new_request_id_each_run() -> None:
    """A request id makes a call idempotent: an example with a fixed one answers a second run
    with the first run's answer (the same session, the same dealt round), silently. The
    sandbox's banner shows the same example."""
    texts = {str(doc.relative_to(ROOT)): doc.read_text() for doc in _documents()}
    texts["rgs sandbox's banner"] = HOW_TO_PLAY
    fixed, seen = [], 0
    for name, text in texts.items():
        for line in text.splitlines():
            for rid in re.findall(r'"request_id":\s*"([^"]*)"', line):
                if "grpcurl" in line or "-d '" in line:
                    seen += 1
                    if "$" not in rid:
                        fixed.append(f"{name}: {rid!r}")
    assert seen >= 6  # the README's three and the banner's three are still there to check
    assert not fixed, f"grpcurl examples with a fixed request id: {fixed}"
