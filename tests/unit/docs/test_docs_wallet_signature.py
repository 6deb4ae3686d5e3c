"""The signed HTTP wallet call of docs/wallet.md is what the RGS really sends: the canonical body,
the path, the timestamp, the HMAC-SHA256 signature header byte for byte; and the client accepts
the page's signed answer. The page's openssl command signs the same bytes with the same
secret."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from rgs.wallet.http_wallet import HttpWallet, HttpWalletSettings
from rgs.wallet.port import MoneyCall, MoneyKind, Party

WALLET_MD = Path(__file__).resolve().parents[3] / "docs" / "wallet.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(lang: str) -> list[str]:
    text = WALLET_MD.read_text("utf-8")
    return [m.group(2) for m in _FENCE.finditer(text) if m.group(1) == lang]


def _example() -> dict[str, Any]:
    found = [b for b in _blocks("toml") if b.startswith("# signed call example")]
    assert len(found) == 1, "the page has one signed call example"
    return tomllib.loads(found[0])


def _hmac(secret: str, text: str) -> str:
    return hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()


def test_the_example_signatures_are_hmac_sha256_of_the_documented_strings() -> None:
    ex = _example()
    assert _hmac(ex["secret"], f"{ex['timestamp']}\nPOST {ex['path']}\n{ex['request_body']}"
                 ) == ex["request_signature"]
    assert _hmac(ex["secret"], f"{ex['request_signature']}\n{ex['answer_status']}\n"
                 f"{ex['answer_body']}") == ex["answer_signature"]
    # The request body is in the canonical form the page describes: sorted keys, no spaces.
    canonical = json.dumps(json.loads(ex["request_body"]), sort_keys=True, separators=(",", ":"))
    assert ex["request_body"] == canonical


def test_the_openssl_command_signs_the_example_body_with_the_example_secret() -> None:
    ex = _example()
    commands = [b for b in _blocks("sh") if "openssl dgst" in b]
    assert len(commands) == 1
    assert f"'{ex['request_body']}'" in commands[0]
    assert f"-hmac '{ex['secret']}'" in commands[0]
    assert f"printf '%s\\nPOST %s\\n%s' {ex['timestamp']} {ex['path']} " in commands[0]


async def test_the_rgs_http_wallet_sends_exactly_the_documented_request() -> None:
    ex = _example()
    body = json.loads(ex["request_body"])
    seen: dict[str, Any] = {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen["request_line"] = (await reader.readline()).decode()
        headers = {}
        while (line := (await reader.readline()).decode()) not in ("\r\n", ""):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        seen["headers"] = headers
        seen["body"] = await reader.readexactly(int(headers["content-length"]))
        answer = ex["answer_body"].encode()
        writer.write(f"HTTP/1.1 {ex['answer_status']} OK\r\n".encode()
                     + b"Content-Type: application/json\r\n"
                     + f"Content-Length: {len(answer)}\r\n".encode()
                     + f"X-Rgs-Signature: {ex['answer_signature']}\r\n\r\n".encode() + answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    base = ex["path"].rsplit("/", 1)[0]
    wallet = HttpWallet(HttpWalletSettings(url=f"http://127.0.0.1:{port}{base}",
                                           hmac_secret=ex["secret"], timeout_s=5),
                        clock=lambda: float(ex["timestamp"]))
    try:
        result = await wallet.move(MoneyCall(
            kind=MoneyKind.DEBIT, transaction_id=body["transaction_id"],
            round_id=body["round_id"], amount=body["amount"],
            party=Party(operator_id=body["operator_id"], brand_id=body["brand_id"],
                        player_id=body["player_id"], session_id=body["session_id"],
                        currency=body["currency"])))
    finally:
        await wallet.close()
        server.close()
        await server.wait_closed()
    assert seen["request_line"] == f"POST {ex['path']} HTTP/1.1\r\n"
    assert seen["body"] == ex["request_body"].encode()
    assert seen["headers"]["x-rgs-signature"] == ex["request_signature"]
    assert seen["headers"]["x-rgs-timestamp"] == ex["timestamp"]
    assert seen["headers"]["content-type"] == "application/json"
    assert result.balance == json.loads(ex["answer_body"])["balance"]
    # The request shown on the wire carries the same length and signature.
    page = WALLET_MD.read_text("utf-8")
    assert f"Content-Length: {len(seen['body'])}\n" in page
    assert f"X-Rgs-Signature: {ex['request_signature']}\n" in page
    assert f"X-Rgs-Timestamp: {ex['timestamp']}\n" in page
