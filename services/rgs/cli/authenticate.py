"""``rgs authenticate``: the installed control programs against the release manifest
(N.J.A.C. 13:69O-1.5, AGCO 6.1; ``docs/authentication.md``).

    rgs authenticate                     # exit 0: every file as the manifest records it
    rgs authenticate --seed 00112233...  # a lab's challenge: HMAC-SHA-256 of the whole
    rgs authenticate --write-manifest    # (packaging) write the manifest of the package folder
    rgs authenticate --root DIR --json   # another copy of the package; one JSON object

Exit status 0 when authentic (or the seeded digest / manifest was written), 1 when a control
program differs (each one named), 2 on a usage error or without a manifest to compare with.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rgs.cli.common import Progress, UserError


def run_authenticate(args: argparse.Namespace) -> int:
    """Carry out ``rgs authenticate``; return the exit status."""
    from rgs import __version__
    from rgs.authenticity.check import PACKAGE_ROOT, Verdict, authenticate
    from rgs.authenticity.manifest import (
        control_programs,
        digest_files,
        parse_seed,
        seeded_digest,
        whole_digest,
        write_manifest,
    )

    root = Path(args.root) if args.root else PACKAGE_ROOT
    if not (root / "__init__.py").is_file():
        raise UserError(f"{root} is not the rgs package folder (no __init__.py): give --root "
                        "the folder of an installed rgs package, e.g. .../site-packages/rgs")
    if args.seed is not None and args.write_manifest:
        raise UserError("--seed and --write-manifest go separately: write the manifest first")
    seed = None
    if args.seed is not None:
        try:
            seed = parse_seed(args.seed)
        except ValueError as exc:
            raise UserError(f"--seed: {exc}; e.g. --seed $(openssl rand -hex 32)") from exc
    progress = Progress(len(control_programs(root)), "hashing control programs",
                        quiet=args.json)
    try:
        if args.write_manifest:
            manifest = write_manifest(root, __version__, progress=progress)
            progress.close()
            _emit(args, {"written": str(root / "RELEASE-MANIFEST.json"),
                         "files": len(manifest.files), "whole": manifest.whole},
                  f"release manifest written: {len(manifest.files)} control programs, "
                  f"SHA-256 {manifest.whole}")
            return 0
        if seed is not None:
            whole = whole_digest(digest_files(root, progress=progress))
            progress.close()
            answer = seeded_digest(whole, seed)
            _emit(args, {"seed": seed.hex(), "hmac_sha256": answer}, answer)
            return 0
        report = authenticate(root, expected_whole=args.expect, progress=progress)
        progress.close()
    except OSError as exc:
        raise UserError(f"cannot read {exc.filename or root}: {exc.strerror or exc}; run as a "
                        "user who may read the installed package") from exc
    if report.verdict is Verdict.NO_MANIFEST:
        raise UserError(report.detail)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(report.summary() if report.authentic or not report.differences else
              f"NOT AUTHENTIC: {len(report.differences)} control program(s) differ from the "
              f"release manifest (SHA-256 now {report.whole}, manifest {report.manifest_whole})")
        for d in report.differences:
            print(f"  {d.kind:<10}  {d.path}")
        if not report.authentic and not report.differences:
            print(f"  {report.detail}")
    return 0 if report.authentic else 1


def _emit(args: argparse.Namespace, data: dict[str, object], line: str) -> None:
    print(json.dumps(data) if args.json else line)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs authenticate``."""
    p = sub.add_parser(
        "authenticate", help="check the installed control programs against the release "
        "manifest (or answer a lab's seeded challenge)",
        description="Recompute the SHA-256 of every control program of the installed rgs "
                    "package (sources, variant data, PAR sheets, migrations, web bundle) and "
                    "compare each with the release manifest the build wrote; name every file "
                    "that differs.")
    p.add_argument("--seed", metavar="HEX", help="print HMAC-SHA-256 of the whole digest "
                   "keyed by this challenge seed (16 to 1024 bytes in hex) instead")
    p.add_argument("--expect", metavar="SHA256", help="also require the whole digest to be "
                   "this certified release's (as RGS_RELEASE_DIGEST does for a replica)")
    p.add_argument("--write-manifest", action="store_true",
                   help="write RELEASE-MANIFEST.json for the package folder (packaging)")
    p.add_argument("--root", metavar="DIR", help="the rgs package folder to check (default: "
                   "the installed package this command runs)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_authenticate)
