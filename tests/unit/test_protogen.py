"""The committed generated protobuf code matches the protos, and the protos pass buf."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rgs import protogen

ROOT = protogen.REPO_ROOT
REGENERATE = "run `python -m rgs.protogen` and commit the result"


def _committed_generated_files() -> set[Path]:
    out = protogen.DEFAULT_OUT_ROOT
    return {
        p.relative_to(out)
        for p in out.rglob("*")
        if p.is_file() and p.name.endswith(protogen.GENERATED_SUFFIXES)
    }


def test_committed_generated_code_is_current(tmp_path: Path) -> None:
    result = protogen.generate(out_root=tmp_path)
    fresh = set(result.files)
    committed = _committed_generated_files()
    assert fresh, "no protos found"
    missing = sorted(str(p) for p in fresh - committed)
    extra = sorted(str(p) for p in committed - fresh)
    assert not missing, f"generated files missing from services/: {missing}; {REGENERATE}"
    assert not extra, f"stale generated files in services/: {extra}; {REGENERATE}"
    stale = [
        str(rel)
        for rel in sorted(fresh)
        if not filecmp.cmp(tmp_path / rel, protogen.DEFAULT_OUT_ROOT / rel, shallow=False)
    ]
    assert not stale, f"generated code is stale: {stale}; {REGENERATE}"


def test_generated_packages_have_init_files() -> None:
    for rel in _committed_generated_files():
        assert (protogen.DEFAULT_OUT_ROOT / rel.parent / "__init__.py").exists(), rel


def test_generated_code_lives_only_in_generated_folders() -> None:
    # A newcomer opening the package sees the architecture, not stubs.
    for rel in _committed_generated_files():
        assert any(rel.is_relative_to(root) for root in protogen.GENERATED_ROOTS), rel


def test_generated_modules_keep_the_proto_packages_on_the_wire() -> None:
    from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
    from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

    assert wallet_pb2.DESCRIPTOR.name == "rgs/wallet/v1/wallet.proto"
    assert wallet_pb2.DESCRIPTOR.package == "rgs.wallet.v1"
    assert sandbox_pb2.DESCRIPTOR.package == "rgs.sandbox.v1"
    assert wallet_pb2.DebitRequest.__module__ == "rgs.generated.wallet.v1.wallet_pb2"
    source = Path(wallet_pb2_grpc.__file__).read_text("utf-8")
    assert "'/rgs.wallet.v1.WalletService/Debit'" in source


def test_a_proto_folder_without_a_python_package_is_refused(tmp_path: Path) -> None:
    (tmp_path / "acme" / "v1").mkdir(parents=True)
    (tmp_path / "acme" / "v1" / "acme.proto").write_text('syntax = "proto3";\npackage acme.v1;\n')
    with pytest.raises(protogen.ProtogenError, match="PLACEMENT"):
        protogen.generate(proto_root=tmp_path, out_root=tmp_path / "out")


def _buf() -> str:
    found = Path(sys.executable).parent / "buf"
    if found.exists():
        return str(found)
    which = shutil.which("buf")
    if which is None:
        pytest.fail("buf not found: run `bash .ci/setup` (dev extra installs buf-bin)")
    return which


def test_protos_pass_buf_lint() -> None:
    run = subprocess.run(
        [_buf(), "lint", "proto"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _main_commit() -> str | None:
    """The commit of branch main: local in a clone of main, else as the clone's origin/main."""
    for ref in ("refs/heads/main", "refs/remotes/origin/main"):
        run = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                             cwd=ROOT, capture_output=True, text=True, check=False)
        if run.returncode == 0:
            return run.stdout.strip()
    return None


def _main_has_protos(commit: str) -> bool:
    run = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", commit, "--", "proto"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return run.returncode == 0 and any(n.endswith(".proto") for n in run.stdout.split())


def test_protos_have_no_wire_json_breaking_change_against_main() -> None:
    # main holds the published contract from now on: comparing against nothing would hide a break
    main = _main_commit()
    assert main is not None, "branch main (or origin/main) must exist to compare the protos against"
    assert _main_has_protos(main), "branch main must hold the committed protos to compare against"
    run = subprocess.run(
        [_buf(), "breaking", "proto", "--against", f".git#ref={main},subdir=proto"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
