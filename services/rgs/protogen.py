"""Generate the Python code for every ``.proto`` file under ``proto/``.

Run ``python -m rgs.protogen`` from the repository root after changing a proto. Generated code
lives in folders named ``generated`` so nobody mistakes it for the architecture:

* ``proto/rgs/blackjack/v1/blackjack.proto`` (and ``operator``, ``wallet``) becomes
  ``services/rgs/generated/blackjack/v1/blackjack_pb2.py``, ``blackjack_pb2_grpc.py`` and their
  mypy-protobuf ``.pyi`` stubs, imported as ``rgs.generated.blackjack.v1.blackjack_pb2``;
* ``proto/rgs/sandbox/v1/sandbox.proto``, the sandbox wallet's control API, belongs to the
  sandbox wallet: ``services/sandbox_wallet/generated/sandbox/v1/``.

protoc names Python modules after the proto file paths (``rgs/blackjack/v1`` would become
``rgs.blackjack.v1``), and the proto file paths must stay as they are: they are the names
reflection serves and the descriptor pool registers. So protoc writes into a scratch folder and
each module is moved to its place with its imports of sibling generated modules rewritten. The
proto packages (``rgs.blackjack.v1`` ...) and therefore the wire are untouched.

The output is committed; ``tests/unit/test_protogen.py`` fails when it is stale.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository root (``services/rgs/protogen.py`` is two levels below it)."""

DEFAULT_PROTO_ROOT = REPO_ROOT / "proto"
"""Where the ``.proto`` sources live; also the protoc include root."""

DEFAULT_OUT_ROOT = REPO_ROOT / "services"
"""The directory holding the ``rgs`` and ``sandbox_wallet`` packages."""

PLACEMENT: Mapping[str, str] = {
    "rgs/blackjack/v1": "rgs.generated.blackjack.v1",
    "rgs/operator/v1": "rgs.generated.operator.v1",
    "rgs/wallet/v1": "rgs.generated.wallet.v1",
    "rgs/table/v1": "rgs.generated.table.v1",
    "rgs/admin/v1": "rgs.generated.admin.v1",
    "rgs/sandbox/v1": "sandbox_wallet.generated.sandbox.v1",
}
"""The Python package each proto folder's code goes to. A new proto folder needs an entry."""

GENERATED_ROOTS = ("rgs/generated", "sandbox_wallet/generated")
"""The folders (relative to the output root) that hold nothing but generated code."""

GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")
"""File name endings of everything this generator writes (besides ``__init__.py``)."""

INIT_DOCSTRING = '"""Generated protobuf code: do not edit; run `python -m rgs.protogen`."""\n'
"""Content of the ``__init__.py`` files created for generated packages."""


class ProtogenError(Exception):
    """Root of this module's errors: protoc failed, a tool is missing, a proto has no place."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GenerationResult:
    """What one generator run wrote."""

    files: tuple[Path, ...]
    """Every generated file (relative to the output root), sorted."""


def proto_files(proto_root: Path) -> list[Path]:
    """Return every ``.proto`` file under ``proto_root``, relative to it, sorted."""
    return sorted(p.relative_to(proto_root) for p in proto_root.rglob("*.proto"))


def python_package(proto_dir: str) -> str:
    """The Python package the code of a proto folder goes to.

    >>> python_package("rgs/wallet/v1")
    'rgs.generated.wallet.v1'
    """
    try:
        return PLACEMENT[proto_dir]
    except KeyError:
        raise ProtogenError(f"no Python package for proto folder {proto_dir}: add it to "
                            "rgs.protogen.PLACEMENT") from None


def rewrite_imports(source: str) -> str:
    """Point references to generated modules at their packages (protoc's names follow the
    proto paths). Only ``<package>.<name>_pb2[_grpc]`` module paths and ``from <package>
    import`` lines change: method paths such as ``/rgs.wallet.v1.WalletService/Debit`` and the
    serialized descriptors keep the proto package.

    >>> rewrite_imports("from rgs.wallet.v1 import wallet_pb2 as w")
    'from rgs.generated.wallet.v1 import wallet_pb2 as w'
    >>> rewrite_imports("'/rgs.wallet.v1.WalletService/Debit', 'rgs.wallet.v1.wallet_pb2'")
    "'/rgs.wallet.v1.WalletService/Debit', 'rgs.generated.wallet.v1.wallet_pb2'"
    """
    for proto_dir, package in PLACEMENT.items():
        dotted = re.escape(proto_dir.replace("/", "."))
        source = re.sub(rf"\b{dotted}\.(\w+_pb2(?:_grpc)?)\b", rf"{package}.\1", source)
        source = re.sub(rf"^(\s*)from {dotted} import ", rf"\1from {package} import ", source,
                        flags=re.MULTILINE)
    return source


def _plugin(name: str) -> Path:
    # The mypy-protobuf plugins are console scripts installed next to the running interpreter.
    candidate = Path(sys.executable).parent / name
    found = candidate if candidate.exists() else shutil.which(name)
    if found is None:
        raise ProtogenError(f"{name} not found; install the dev extra (mypy-protobuf)")
    return Path(found)


def _ensure_packages(out_root: Path, generated: Sequence[Path]) -> None:
    """Create missing ``__init__.py`` files on the path of every generated module, up to (not
    including) the top-level package."""
    for rel in generated:
        parent = rel.parent
        while len(parent.parts) > 1:
            init = out_root / parent / "__init__.py"
            if not init.exists():
                init.write_text(INIT_DOCSTRING)
            parent = parent.parent


def _protoc(proto_root: Path, sources: Sequence[Path], scratch: Path) -> None:
    from grpc_tools import protoc  # dev-only dependency, so imported only when generating

    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--python_out={scratch}",
        f"--grpc_python_out={scratch}",
        f"--mypy_out={scratch}",
        f"--mypy_grpc_out={scratch}",
        *(str(s) for s in sources),
    ]
    if protoc.main(args) != 0:
        raise ProtogenError(f"protoc failed on {[str(s) for s in sources]}")


def generate(
    *, proto_root: Path = DEFAULT_PROTO_ROOT, out_root: Path = DEFAULT_OUT_ROOT
) -> GenerationResult:
    """Compile every proto under ``proto_root`` into its package under ``out_root`` and return
    what was written.

    Old generated files in the target packages are removed first, so the output depends only on
    the current sources and the pinned tool versions.
    """
    sources = proto_files(proto_root)
    if not sources:
        raise ProtogenError(f"no .proto files under {proto_root}")
    targets = {s.parent.as_posix(): Path(*python_package(s.parent.as_posix()).split("."))
               for s in sources}
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="rgs-protogen-") as tmp:
        scratch = Path(tmp)
        _protoc(proto_root, sources, scratch)
        for proto_dir, target in sorted(targets.items()):
            (out_root / target).mkdir(parents=True, exist_ok=True)
            for old in (out_root / target).iterdir():
                if old.name.endswith(GENERATED_SUFFIXES):
                    old.unlink()
            for made in sorted((scratch / proto_dir).iterdir()):
                if made.name.endswith(GENERATED_SUFFIXES):
                    (out_root / target / made.name).write_text(
                        rewrite_imports(made.read_text("utf-8")), "utf-8")
                    written.append(target / made.name)
    _ensure_packages(out_root, written)
    return GenerationResult(files=tuple(sorted(written)))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m rgs.protogen [--proto-root DIR] [--out-root DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m rgs.protogen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto-root", type=Path, default=DEFAULT_PROTO_ROOT)
    parser.add_argument("--out-root", type=Path, default=DEFAULT_OUT_ROOT)
    ns = parser.parse_args(argv)
    try:
        result = generate(proto_root=ns.proto_root, out_root=ns.out_root)
    except ProtogenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in result.files:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
