"""docs/operators.md is true: its example platform file loads with the service's own loader,
and the two error lines it quotes are what the loader prints for those mistakes."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rgs.platform_file import PlatformError, load_platform

PAGE = Path(__file__).resolve().parents[3] / "docs" / "operators.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(lang: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(PAGE.read_text("utf-8")) if m.group(1) == lang]


def _example(tmp_path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The page's example with its /etc/rgs files made under tmp_path."""
    text = _blocks("json")[0].replace("/etc/rgs/", f"{tmp_path}/etc/rgs/")
    for path in set(re.findall(rf'"({re.escape(str(tmp_path))}[^"]+)"', text)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("a-secret-from-a-file-0123456789")
    return json.loads(text), {"RGS_WALLET_KEY_DEV_OPERATOR": "a-wallet-key-0123"}


def test_the_example_platform_file_loads(tmp_path: Path) -> None:
    raw, env = _example(tmp_path)
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(raw))
    plat = load_platform(path, environ=env)
    assert set(plat.operators) == {"dev-operator", "other-operator"}
    assert plat.brands["demo-casino"].variant_options("electronic-h17").decks == 2
    assert plat.brands["demo-casino"].currencies == ("EUR", "USD")


@pytest.mark.parametrize("line", range(2))
def test_the_quoted_error_lines_are_what_the_loader_prints(tmp_path: Path, line: int) -> None:
    raw, env = _example(tmp_path)
    broken = copy.deepcopy(raw)
    if line == 0:
        broken["operators"][1]["brands"][0]["currencies"]["EUR"] = {"limits": {
            "main_min": 0, "main_max": 1, "side_min": 1, "side_max": 1}}
    else:
        broken["operators"][0]["wallet"] = {"kind": "http", "url": "https://w.example/rgs",
                                            "hmac_secret": "literal-secret-0123456789"}
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(PlatformError) as err:
        load_platform(path, environ=env)
    quoted = _blocks("")[0].splitlines()[line]
    assert quoted.replace("platform.json:", f"{path}:", 1) in str(err.value).splitlines()
