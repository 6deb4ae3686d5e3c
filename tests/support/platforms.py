"""Platform files for tests: the shipped sandbox platform (two operators, each with its own
wallet) pointed at wallets the tests started on free ports."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rgs.platform_file import DEFAULT_PLATFORM_FILE, Platform, load_platform

SANDBOX_WALLET_KEYS = {"dev-operator": "sandbox-wallet-dev-key",
                       "other-operator": "sandbox-wallet-other-key"}
"""The wallet key of each sandbox operator (files beside the shipped platform file)."""


def sandbox_platform(wallets: Mapping[str, str]) -> Platform:
    """The shipped platform with some operators' wallet addresses replaced (operator -> target);
    an operator left out keeps its own (unreachable in tests) address."""
    return load_platform(DEFAULT_PLATFORM_FILE).with_wallets(
        **{op: {"address": target} for op, target in wallets.items()})


def write_platform_file(path: Path, wallets: Mapping[str, str],
                        brand_fields: Mapping[str, Mapping[str, Any]] | None = None,
                        **wallet_fields: Mapping[str, Any]) -> Path:
    """A copy of the shipped platform file at ``path`` with the wallets' addresses (operator ->
    target), any other wallet fields (operator -> fields) and brand fields (brand -> fields)
    replaced; secret file references are made absolute so the copy works from anywhere."""
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for op in raw["operators"]:
        for brand in op["brands"]:
            brand.update((brand_fields or {}).get(brand["id"], {}))
        wallet = op["wallet"]
        if op["id"] in wallets:
            wallet["address"] = wallets[op["id"]]
        wallet.update(wallet_fields.get(op["id"], {}))
        for ref in ("api_key", "hmac_secret"):
            f = wallet.get(ref, {}).get("file") if isinstance(wallet.get(ref), dict) else None
            if f:
                wallet[ref]["file"] = str(DEFAULT_PLATFORM_FILE.parent / f)
    path.write_text(json.dumps(raw, indent=1), "utf-8")
    return path
