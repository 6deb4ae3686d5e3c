"""Generate the Python code for every ``.proto`` file under ``proto/``.

Run ``python -m rgs.protogen`` from the repository root after changing a proto. The generated
modules land inside the package tree (``proto/rgs/wallet/v1/wallet.proto`` becomes
``services/rgs/wallet/v1/wallet_pb2.py``, ``wallet_pb2_grpc.py`` and mypy-protobuf ``.pyi``
stubs), so they import as ``rgs.wallet.v1.wallet_pb2``. The output is committed;
``tests/unit/test_protogen.py`` fails when it is stale.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository root (``services/rgs/protogen.py`` is two levels below it)."""

DEFAULT_PROTO_ROOT = REPO_ROOT / "proto"
"""Where the ``.proto`` sources live; also the protoc include root."""

DEFAULT_OUT_ROOT = REPO_ROOT / "services"
"""Where generated modules are written (the directory holding the ``rgs`` package)."""

GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")
"""File name endings of everything this generator writes (besides ``__init__.py``)."""

INIT_DOCSTRING = '"""Generated protobuf package (see rgs.protogen)."""\n'
"""Content of the ``__init__.py`` files created for generated packages."""


class ProtogenError(Exception):
    """Root of this module's errors: protoc failed or a tool is missing."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GenerationResult:
    """What one generator run wrote."""

    files: tuple[Path, ...]
    """Every generated file (relative to the output root), sorted."""


def proto_files(proto_root: Path) -> list[Path]:
    """Return every ``.proto`` file under ``proto_root``, relative to it, sorted."""
    return sorted(p.relative_to(proto_root) for p in proto_root.rglob("*.proto"))


def _plugin(name: str) -> Path:
    # The mypy-protobuf plugins are console scripts installed next to the running interpreter.
    candidate = Path(sys.executable).parent / name
    found = candidate if candidate.exists() else shutil.which(name)
    if found is None:
        raise ProtogenError(f"{name} not found; install the dev extra (mypy-protobuf)")
    return Path(found)


def _ensure_packages(out_root: Path, generated: Sequence[Path]) -> list[Path]:
    """Create missing ``__init__.py`` files on the path of every generated module."""
    created: list[Path] = []
    for rel in generated:
        parent = rel.parent
        while parent != Path("."):
            init = out_root / parent / "__init__.py"
            if not init.exists():
                init.write_text(INIT_DOCSTRING)
                created.append(parent / "__init__.py")
            parent = parent.parent
    return created


def generate(
    *, proto_root: Path = DEFAULT_PROTO_ROOT, out_root: Path = DEFAULT_OUT_ROOT
) -> GenerationResult:
    """Compile every proto under ``proto_root`` into ``out_root`` and return what was written.

    Old generated files for protos that no longer exist are removed, so the output depends only
    on the current sources and the pinned tool versions.
    """
    from grpc_tools import protoc  # dev-only dependency, so imported only when generating

    sources = proto_files(proto_root)
    if not sources:
        raise ProtogenError(f"no .proto files under {proto_root}")
    out_root.mkdir(parents=True, exist_ok=True)
    for package_dir in {out_root / s.parent for s in sources}:
        package_dir.mkdir(parents=True, exist_ok=True)
        for old in package_dir.iterdir():
            if old.name.endswith(GENERATED_SUFFIXES):
                old.unlink()
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--python_out={out_root}",
        f"--grpc_python_out={out_root}",
        f"--mypy_out={out_root}",
        f"--mypy_grpc_out={out_root}",
        *(str(s) for s in sources),
    ]
    if protoc.main(args) != 0:
        raise ProtogenError(f"protoc failed on {[str(s) for s in sources]}")
    written = sorted(
        p.relative_to(out_root)
        for s in sources
        for p in (out_root / s.parent).iterdir()
        if p.name.endswith(GENERATED_SUFFIXES)
    )
    _ensure_packages(out_root, written)
    return GenerationResult(files=tuple(written))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m rgs.protogen [--proto-root DIR] [--out-root DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m rgs.protogen", description=__doc__)
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
