"""The committed web artefacts are what their sources build: the TypeScript client's generated
code matches proto/ and its dist/ matches src/; the web table's bundle in rgs/web_table/static
matches web/table. Rebuilt into a temporary folder with the locked tools
(``bash .ci/web-tools``)."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "web" / "client"
TABLE = ROOT / "web" / "table"
STATIC = ROOT / "services" / "rgs" / "web_table" / "static"


def _tool(package: Path, name: str) -> str:
    path = package / "node_modules" / ".bin" / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `bash .ci/web-tools` (npm ci in web/client and "
                    "web/table)")
    return str(path)


def _run(args: list[str], cwd: Path) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=180,
                          check=False)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


def _differences(left: Path, right: Path) -> list[str]:
    cmp = filecmp.dircmp(left, right)
    out = [*cmp.left_only, *cmp.right_only, *cmp.diff_files, *cmp.funny_files]
    for sub in cmp.common_dirs:
        out.extend(f"{sub}/{d}" for d in _differences(left / sub, right / sub))
    return out


def test_the_client_generated_from_proto_is_committed(tmp_path: Path) -> None:
    buf = Path(sys.executable).parent / "buf"
    template = tmp_path / "buf.gen.yaml"
    template.write_text((CLIENT / "buf.gen.yaml").read_text().replace(
        "local: node_modules/.bin/protoc-gen-es", f"local: {_tool(CLIENT, 'protoc-gen-es')}")
        .replace("out: src/gen", f"out: {tmp_path / 'gen'}"))
    _run([str(buf), "generate", "../../proto", "--template", str(template),
          "--path", "../../proto/rgs/blackjack", "--path", "../../proto/rgs/table"], CLIENT)
    stale = _differences(tmp_path / "gen", CLIENT / "src" / "gen")
    assert not stale, (f"web/client/src/gen is stale ({stale}): run "
                       "`cd web/client && npm run all` and commit src/gen and dist")


def test_the_client_dist_is_built_from_its_sources(tmp_path: Path) -> None:
    _run([_tool(CLIENT, "tsc"), "-p", "tsconfig.json", "--outDir", str(tmp_path / "dist")],
         CLIENT)
    stale = _differences(tmp_path / "dist", CLIENT / "dist")
    assert not stale, (f"web/client/dist is stale ({stale}): run "
                       "`cd web/client && npm run build` and commit dist")


def test_the_served_web_table_is_the_bundle_of_its_sources(tmp_path: Path) -> None:
    _run([_tool(TABLE, "tsc"), "-p", "tsconfig.json", "--noEmit"], TABLE)
    out = tmp_path / "app.js"
    _run([_tool(TABLE, "esbuild"), "src/main.ts", "--bundle", "--format=esm",
          "--target=es2020", "--minify", "--legal-comments=none", "--charset=utf8",
          f"--outfile={out}", "--log-level=warning"], TABLE)
    _run([_tool(TABLE, "esbuild"), "src/replay.ts", "--bundle", "--format=esm",
          "--target=es2020", "--minify", "--legal-comments=none", "--charset=utf8",
          f"--outfile={tmp_path / 'replay.js'}", "--log-level=warning"], TABLE)
    for name in ("index.html", "replay.html", "style.css"):
        shutil.copy(TABLE / name, tmp_path / name)
    stale = [n for n in ("app.js", "replay.js", "index.html", "replay.html", "style.css")
             if (tmp_path / n).read_bytes() != (STATIC / n).read_bytes()]
    assert not stale, (f"services/rgs/web_table/static is stale ({stale}): run "
                       "`cd web/table && npm run build` and commit the bundle")


def test_the_bundle_command_in_package_json_is_the_one_checked_here() -> None:
    script = (TABLE / "package.json").read_text()
    assert ("esbuild src/main.ts --bundle --format=esm --target=es2020 --minify "
            "--legal-comments=none --charset=utf8") in script
    assert ("esbuild src/replay.ts --bundle --format=esm --target=es2020 --minify "
            "--legal-comments=none --charset=utf8") in script
