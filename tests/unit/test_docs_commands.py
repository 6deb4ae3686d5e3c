"""Every shell command shown in the README and in ``docs/`` is checked, so none can drift.

Each fenced ``sh`` block is split into commands (backslash continuations joined; pipes, ``&&``,
``;`` and ``$(...)`` split apart) and every command is checked by what it starts with:

- ``rgs ...`` (also ``.venv/bin/rgs``): the real ``rgs`` argument parser accepts it;
- ``bash F`` / ``. F``: the script exists in the repository;
- ``.venv/bin/python F ARGS``: the script exists and its ``--help`` names every ``--flag`` used;
- ``.venv/bin/python -m M``: the module imports;
- ``pytest ...``: every path exists and every ``-m`` marker is declared;
- ``grpcurl ... -d JSON HOST METHOD``, and the docs' ``bj METHOD JSON`` helper: the method
  exists and the JSON parses *strictly* into its request message (no unknown field, no wrong
  enum name);
- ``curl ... -d JSON URL`` (a Connect call to the browser edge): the URL's path is a method and
  the JSON parses into its request;
- ``npm ci``/``npm install`` as they are, ``npm run S``: a package under ``web/`` has script S;
- a few external tools (``jq``, ``dieharder``, ``openssl``, ``printf``, ``tee``) are accepted as
  they are.

A command that starts with anything else fails the test, so a new kind of command needs a
checker here.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from rgs.cli import build_parser
from rgs.generated.admin.v1 import admin_pb2
from rgs.generated.blackjack.v1 import blackjack_pb2
from rgs.generated.operator.v1 import operator_pb2
from rgs.generated.wallet.v1 import wallet_pb2

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.M | re.S)
#: Tools from outside the project that the docs use as they are.
EXTERNAL = {"jq", "dieharder", "openssl", "printf", "tee", "cd", "git"}
#: The docs' shell helper (docs/examples/sandbox-session.sh): ``bj METHOD JSON``.
BJ_SERVICE = "rgs.blackjack.v1.BlackjackService"


@dataclass(frozen=True, slots=True)
class Command:
    """One command of a documentation block, with where it was found."""

    doc: str
    words: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.doc}: {' '.join(self.words)}"


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _split(line: str) -> Iterator[list[str]]:
    """The commands of one logical shell line, as word lists (substitutions split out)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words: list[str] = []
    redirect = False
    for tok in lexer:
        if redirect:  # the file of a redirection is no argument
            redirect = False
            continue
        if tok in {">", ">>", "<", "2>", "&>"}:
            redirect = True
            continue
        if tok in {"|", "||", "&&", ";", "(", ")", "&", "$(", "$"} or set(tok) <= set("|&;()"):
            if words:
                yield words
            words = []
            continue
        # "TOKEN=$" before a "(": an assignment whose value is the substitution
        words.append(tok[:-1] if tok.endswith("$") and len(tok) > 1 else tok)
    if words:
        yield words


def _logical_lines(block: str) -> Iterator[str]:
    """The block's commands line by line: a backslash-newline continues the line, a newline
    inside quotes belongs to the quoted word, a ``#`` outside quotes starts a comment."""
    line: list[str] = []
    quote = ""
    i = 0
    while i < len(block):
        ch = block[i]
        if quote:
            line.append(" " if ch == "\n" else ch)
            if ch == quote:
                quote = ""
        elif ch == "\\" and block[i + 1:i + 2] == "\n":
            line.append(" ")
            i += 1
        elif ch in "'\"":
            quote = ch
            line.append(ch)
        elif ch == "#" and (not line or line[-1] in " \t"):
            while i < len(block) and block[i] != "\n":
                i += 1
            continue
        elif ch == "\n":
            if "".join(line).strip():
                yield "".join(line)
            line = []
        else:
            line.append(ch)
        i += 1
    if "".join(line).strip():
        yield "".join(line)


def commands() -> list[Command]:
    """Every command in every sh block of the README and docs/."""
    out: list[Command] = []
    for doc in _documents():
        rel = str(doc.relative_to(ROOT))
        for block in BLOCK.findall(doc.read_text("utf-8")):
            for line in _logical_lines(block):
                for split in _split(line):
                    words = list(split)
                    while words and re.match(r"^[A-Z_]+=", words[0]):  # VAR=value prefixes
                        words = words[1:]
                    if words:
                        out.append(Command(doc=rel, words=tuple(words)))
    return out


# ------------------------------------------------------------------------------- checkers


def _check_rgs(cmd: Command, args: list[str]) -> None:
    parser = build_parser()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            ns = parser.parse_args(args)
        except SystemExit as exc:
            pytest.fail(f"{cmd}: rgs refuses it: {err.getvalue().strip() or exc}")
    assert getattr(ns, "func", None) is not None, f"{cmd}: not a runnable rgs command"


def _repo_file(cmd: Command, name: str) -> Path:
    path = ROOT / name
    assert path.is_file(), f"{cmd}: {name} is not a file of the repository"
    return path


@cache
def _help_text(script: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / script), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 0, f"{script} --help failed: {done.stderr[-500:]}"
    return done.stdout


def _check_python(cmd: Command, args: list[str]) -> None:
    if args[:1] == ["-m"]:
        importlib.import_module(args[1])
        return
    script = args[0]
    _repo_file(cmd, script)
    flags = [a.split("=")[0] for a in args[1:] if a.startswith("--")]
    if flags:  # only then is the script asked for its --help (which must not run it)
        text = _help_text(script)
        for flag in flags:
            assert flag in text, f"{cmd}: {script} has no {flag}"


@cache
def _markers() -> frozenset[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    declared = config["tool"]["pytest"]["ini_options"]["markers"]
    return frozenset(m.split(":")[0].strip() for m in declared)


def _check_pytest(cmd: Command, args: list[str]) -> None:
    it = iter(args)
    for a in it:
        if a == "-m":
            expr = next(it)
            names = set(re.findall(r"\b(?!not\b|and\b|or\b)(\w+)", expr))
            assert names <= _markers(), f"{cmd}: unknown marker in {expr!r}"
        elif not a.startswith("-"):
            target = a.split("::")[0]
            assert (ROOT / target).exists(), f"{cmd}: {target} does not exist"


def _method_input(cmd: Command, full: str) -> type[Message]:
    service, _, method = full.rpartition("/")
    for module in (blackjack_pb2, operator_pb2, admin_pb2, wallet_pb2):
        for s in module.DESCRIPTOR.services_by_name.values():
            if s.full_name == service and method in s.methods_by_name:
                return GetMessageClass(s.methods_by_name[method].input_type)
    pytest.fail(f"{cmd}: no method {full} in the protos")


def _check_request_json(cmd: Command, full_method: str, body: str) -> None:
    cls = _method_input(cmd, full_method)
    try:
        raw = json.loads(body)
    except json.JSONDecodeError as exc:
        pytest.fail(f"{cmd}: the request body is not JSON: {exc}")
    try:
        # Strict: an unknown field or a wrong enum name fails, as grpcurl would.
        json_format.ParseDict(raw, cls())
    except json_format.ParseError as exc:
        pytest.fail(f"{cmd}: the body does not fit {cls.DESCRIPTOR.full_name}: {exc}")


def _check_grpcurl(cmd: Command, args: list[str]) -> None:
    body = None
    rest: list[str] = []
    it = iter(args)
    for a in it:
        if a == "-d":
            body = next(it)
        elif a == "-H":
            next(it)
        elif not a.startswith("-"):
            rest.append(a)
    method = rest[-1]
    assert "/" in method, f"{cmd}: the last argument is not a Service/Method"
    cls = _method_input(cmd, method)
    if body is not None and "{" in body and not body.startswith("{\\"):
        _check_request_json(cmd, method, body)
    elif body is not None:
        # A body built by shell quoting (docs/examples): at least the method fits.
        assert cls is not None


def _check_npm(cmd: Command, args: list[str]) -> None:
    """``npm ci`` / ``npm install`` as they are; ``npm run S``: some package under web/ has
    the script S."""
    if args and args[0] in ("ci", "install"):
        return
    assert len(args) >= 2 and args[0] == "run", f"{cmd}: only npm ci/install/run are checked"
    scripts = set()
    for package in (ROOT / "web").glob("*/package.json"):
        scripts |= set(json.loads(package.read_text())["scripts"])
    assert args[1] in scripts, f"{cmd}: no package under web/ has the script {args[1]!r}"


def _check_curl(cmd: Command, args: list[str]) -> None:
    """A Connect call to the browser edge: the URL ends in /Service/Method and the -d body
    fits its request (JSON names in either spelling, as the Connect protocol accepts)."""
    body = None
    urls: list[str] = []
    it = iter(args)
    for a in it:
        if a in ("-d", "--data"):
            body = next(it)
        elif a in ("-H", "--header"):
            next(it)
        elif not a.startswith("-"):
            urls.append(a)
    assert urls, f"{cmd}: no URL"
    path = urls[-1].split("://", 1)[-1].partition("/")[2]
    assert path.count("/") == 1, f"{cmd}: the URL is not <edge>/<Service>/<Method>"
    _method_input(cmd, path)
    if body is not None:
        _check_request_json(cmd, path, body)


def check(cmd: Command) -> None:
    """Fail unless ``cmd`` is a command this repository can run as written."""
    head, args = cmd.words[0], list(cmd.words[1:])
    if head in ("rgs", ".venv/bin/rgs"):
        _check_rgs(cmd, args)
    elif head in ("bash", "."):
        _repo_file(cmd, args[0])
    elif head in (".venv/bin/python", "python", "python3"):
        _check_python(cmd, args)
    elif head in ("pytest", ".venv/bin/pytest"):
        _check_pytest(cmd, args)
    elif head == "grpcurl":
        _check_grpcurl(cmd, args)
    elif head == "bj":
        _check_request_json(cmd, f"{BJ_SERVICE}/{args[0]}", args[1])
    elif head == "npm":
        _check_npm(cmd, args)
    elif head == "curl":
        _check_curl(cmd, args)
    elif head in EXTERNAL:
        return
    else:
        pytest.fail(f"{cmd}: no checker for commands starting with {head!r} "
                    "(add one to tests/unit/test_docs_commands.py)")


# ------------------------------------------------------------------------------- tests

ALL = commands()


def test_the_docs_show_commands_to_check() -> None:
    # The README's two commands and the docs' worked rounds are there: nothing passes vacuously.
    heads = {c.words[0] for c in ALL}
    assert len(ALL) >= 40
    assert {"bash", "grpcurl", "bj"} <= heads
    assert any(c.words[:2] == ("bash", ".ci/sandbox") for c in ALL)
    assert any(c.words[:2] == ("bash", ".ci/test") for c in ALL)


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.doc}:{i}" for i, c in enumerate(ALL)])
def test_documented_command_is_real(cmd: Command) -> None:
    check(cmd)


@pytest.mark.parametrize("bad", [
    ("rgs", "simulate", "--no-such-flag"),
    ("bash", ".ci/no-such-script"),
    ("grpcurl", "-d", '{"request_id":"x","variant":"power"}', "127.0.0.1:50051",
     "rgs.blackjack.v1.BlackjackService/Deal"),
    ("grpcurl", "-d", '{"request_id":"x","action":"ACTION_JUMP"}', "127.0.0.1:50051",
     "rgs.blackjack.v1.BlackjackService/Act"),
    ("grpcurl", "127.0.0.1:50051", "rgs.blackjack.v1.BlackjackService/Teleport"),
    ("bj", "Deal", '{"request_id":"x","stake":5}'),
    (".venv/bin/python", "bench/service.py", "--no-such-flag"),
    ("pytest", "tests/no_such_dir"),
    ("pytest", "-m", "not glacial", "tests"),
    ("curl", "http://example.invalid"),
    ("curl", "-d", '{"teleport":1}', "http://127.0.0.1:8080/rgs.blackjack.v1.BlackjackService/Deal"),
    ("npm", "run", "no-such-script"),
])
def test_a_drifted_command_fails_the_check(bad: tuple[str, ...]) -> None:
    with pytest.raises((AssertionError, pytest.fail.Exception, ImportError)):
        check(Command(doc="example", words=bad))


def test_splitting_follows_shell_syntax() -> None:
    line = "TOKEN=$(grpcurl -plaintext a/B | jq -r .x) && rgs par power; bash .ci/test"
    assert [w[0] for w in _split(line)] == ["TOKEN=", "grpcurl", "jq", "rgs", "bash"]

