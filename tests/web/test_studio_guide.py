"""docs/studio-guide.md's code, run as a studio runs it: the guide's install commands make a
studio project in a temporary folder beside a copy of the repository's committed web/client (what
a fresh clone has: no node_modules), installing @rgs/client from its tarball and its dependencies
from the npm registry (into an npm cache of the test's own, empty: as on a studio's new
machine); the guide's
TypeScript blocks are compiled with the guide's tsc command and run with node against the test
stack's browser edge. The blocks are the ones marked in the markdown (```` ```ts test=solo ````):
the solo round loop plays rounds with the dealer's ace up (insurance declined, then the hand
played or the dealer's blackjack) and an RNG round, the shared-table code a round at a table with
a Bet Behind; every balance is read from the sandbox wallet.

The only code added to the guide's is the test's: the settings block's two values (the stack's
address and the session token), a fetch wrapper that adds test mode's forced cards to Deal and
records the requests sent, and a last line printing what the test checks."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_table_edge import kind_of, ok, watch
from web_stack import START, Web

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "studio-guide.md"
#: A fenced block the test runs: ```ts test=solo ... ``` (the info string's first word is the
#: language a renderer highlights; the rest is ignored by it).
BLOCK = re.compile(r"^```(\w+) test=([\w-]+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: npm as a studio runs it, quieter.
NPM_ENV = {"npm_config_audit": "false", "npm_config_fund": "false",
           "npm_config_update_notifier": "false"}

#: The test's harness around the guide's solo code (kept apart from it by the markers below):
#: forced cards from GUIDE_FORCED_CARDS added to the Deal request (test mode), every request
#: body recorded.
SOLO_HARNESS = """
// ---- the test's harness (tests/web/test_studio_guide.py), not the guide's code ----
declare const process: { env: Record<string, string | undefined> };
const harnessForced: string[] = JSON.parse(process.env.GUIDE_FORCED_CARDS ?? "[]");
const harnessSent: { method: string; body: Record<string, unknown> }[] = [];
const harnessFetch = globalThis.fetch;
globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const method = String(input).split("/").pop() ?? "";
  if (init?.body instanceof Uint8Array) {
    const body = JSON.parse(new TextDecoder().decode(init.body));
    if (method === "Deal" && harnessForced.length > 0) {
      body.forcedCards = harnessForced;
      init = { ...init, body: new TextEncoder().encode(JSON.stringify(body)) };
    }
    harnessSent.push({ method, body });
  }
  return harnessFetch(input, init);
};
// ---- the guide's code ----
"""
SOLO_EPILOGUE = """
// ---- the test's harness again ----
console.log("HARNESS " + JSON.stringify({
  sent: harnessSent, status: RoundStatus[round!.status], staked: String(round!.totalStaked),
  paid: String(round!.totalPaid), balance: String(round!.balance),
}));
"""
TABLE_EPILOGUE = """
// ---- the test's harness ----
console.log("HARNESS " + JSON.stringify({ tableId, mine, lastSeq: String(lastSeq) }));
"""
#: The table round: seat 1 (the guide's player) T 7, seat 3 (the test's player) 9 8, the
#: dealer 6 up and T in the hole, then draws K and busts: both seats stand and win.
TABLE_CARDS = ["TS", "9C", "6S", "7H", "8D", "TD", "KS"]
TABLE = "vip-1"


def guide_blocks() -> dict[str, str]:
    """The guide's marked blocks by name."""
    found: dict[str, str] = {}
    for _lang, name, code in BLOCK.findall(GUIDE.read_text("utf-8")):
        assert name not in found, f"two blocks marked test={name} in {GUIDE}"
        found[name] = code
    missing = {"install", "settings", "solo", "run", "table"} - found.keys()
    assert not missing, f"{GUIDE} has no block marked test= {sorted(missing)}"
    return found


def settings(block: str, base_url: str, token: str) -> str:
    """The guide's settings block with the stack's address and the player's token put in."""
    out, n = re.subn(r'(const baseUrl = )"[^"]*"', lambda m: f'{m[1]}{json.dumps(base_url)}',
                     block)
    out, m = re.subn(r'(const sessionToken = )"[^"]*"', lambda g: f'{g[1]}{json.dumps(token)}',
                     out)
    assert (n, m) == (1, 1), f"the settings block no longer sets baseUrl and sessionToken:\n{block}"
    return out


@dataclass(frozen=True)
class Studio:
    """The studio's project folder and the environment its commands run in."""

    project: Path
    env: dict[str, str]


def tool_env(npm_cache: Path) -> dict[str, str]:
    for exe in ("node", "npm"):
        if shutil.which(exe) is None:
            pytest.fail(f"{exe} is missing: run `bash .ci/web-tools` (installs Debian's nodejs)")
    return {**os.environ, **NPM_ENV, "npm_config_cache": str(npm_cache)}


def run(script: str, cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{script}\nfailed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def clone_client(into: Path) -> None:
    """web/client as a fresh clone has it: the files git tracks, nothing installed."""
    listed = subprocess.run(["git", "ls-files", "-z", "web/client"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, into / rel)
    assert (into / "web/client/dist/index.js").exists(), "web/client/dist is not committed"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    """The studio's project, made by the guide's install block in a folder beside the clone."""
    base = tmp_path_factory.mktemp("studio")
    clone_client(base / "rgs")
    env = tool_env(base / "npm-cache")
    out = run(guide_blocks()["install"] + '\necho "STUDIO_DIR=$PWD"\n', base, env)
    project = Path(out.strip().splitlines()[-1].removeprefix("STUDIO_DIR="))
    assert (project / "package.json").exists(), out
    assert not (base / "rgs/web/client/node_modules").exists()  # nothing came from the clone
    return Studio(project, env)


def compile_program(studio: Studio, code: str) -> list[str]:
    """src/main.ts written and compiled as the guide's run block says; its node command."""
    lines = [ln.strip() for ln in guide_blocks()["run"].splitlines() if ln.strip()]
    compile_cmd = [ln for ln in lines if ln.startswith("npx tsc")]
    node_cmd = [ln for ln in lines if ln.startswith("node ")]
    assert len(compile_cmd) == len(node_cmd) == 1, lines
    (studio.project / "src").mkdir(exist_ok=True)
    (studio.project / "src" / "main.ts").write_text(code, "utf-8")
    run(compile_cmd[0], studio.project, studio.env, timeout=120)
    return node_cmd[0].split()


async def run_node(studio: Studio, cmd: list[str], env: dict[str, str] | None = None,
                   timeout: float = 60) -> tuple[dict[str, Any], str]:
    """Runs the compiled program; the harness line it printed and the rest of its output."""
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=studio.project, env={**studio.env, **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError(f"{' '.join(cmd)} did not end within {timeout} s") from None
    text = out.decode()
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{text}\n{err.decode()}"
    harness = [ln for ln in text.splitlines() if ln.startswith("HARNESS ")]
    assert len(harness) == 1, text
    return json.loads(harness[0].removeprefix("HARNESS ")), text


def acts(sent: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """The decisions the program sent: (seat, hand, action) of each Act."""
    return [(b.get("seat", 0), b.get("hand", 0), b["action"])
            for m, b in ((s["method"], s["body"]) for s in sent) if m == "Act"]


async def test_the_guides_solo_round_loop_plays_insurance_rounds_and_a_random_one(
        web: Web, studio: Studio) -> None:
    pid = await web.new_player()
    token = await web.session_token(pid)
    blocks = guide_blocks()
    node = compile_program(studio, settings(blocks["settings"], web.base_url, token)
                           + SOLO_HARNESS + blocks["solo"] + SOLO_EPILOGUE)
    expected = START

    # The dealer's ace up, no blackjack under it (T 6 against A, 7 in the hole): insurance is
    # declined on the box (seat 1, hand 0; no toAct), then 16 hits a 4 and 20 stands and wins.
    got, text = await run_node(studio, node, {"GUIDE_FORCED_CARDS": json.dumps(
        ["TS", "AH", "6D", "7C", "4S"])})
    assert acts(got["sent"]) == [(1, 0, "ACTION_DECLINE_INSURANCE"), (1, 0, "ACTION_HIT"),
                                 (1, 0, "ACTION_STAND")]
    stake = int(got["staked"])
    assert (got["status"], int(got["paid"])) == ("SETTLED", 2 * stake)
    expected += stake
    assert await web.wallet_balance(pid) == expected == int(got["balance"])
    # The guide's own last line says the same.
    assert f"SETTLED: staked {stake}, paid {2 * stake}, balance {expected}" in text

    # The dealer's blackjack (T 7 against A, K in the hole): insurance declined, the peek ends
    # the round at once and the main bet is lost.
    got, _ = await run_node(studio, node, {"GUIDE_FORCED_CARDS": json.dumps(
        ["TS", "AH", "7D", "KC"])})
    assert acts(got["sent"]) == [(1, 0, "ACTION_DECLINE_INSURANCE")]
    assert (got["status"], int(got["staked"]), int(got["paid"])) == ("SETTLED", stake, 0)
    expected -= stake
    assert await web.wallet_balance(pid) == expected == int(got["balance"])

    # A round of the RNG, played to its end whatever it deals.
    got, _ = await run_node(studio, node)
    assert got["status"] == "SETTLED"
    assert all(a[2] in ("ACTION_HIT", "ACTION_STAND", "ACTION_DECLINE_INSURANCE")
               for a in acts(got["sent"]))
    expected += int(got["paid"]) - int(got["staked"])
    assert await web.wallet_balance(pid) == expected == int(got["balance"])


async def _seat_three(web: Web, token: str, from_seq: int, round_id: str) -> list[str]:
    """The other player at the table, seat 3 (already bet): presses Deal Now (with the forced
    cards) once the guide's player has, stands when due; the kinds of events up to the end."""
    kinds: list[str] = []
    async with asyncio.timeout(60):
        async for item in watch(web, TABLE, token, from_seq=from_seq):
            event = item.get("event")
            if event is None:
                continue
            kinds.append(kind_of(event))
            if kinds[-1] == "deal_now" and event["dealNow"].get("seat") == 1:
                await ok(web, "DealNow", {"requestId": "d3", "tableId": TABLE,
                                          "forcedCards": TABLE_CARDS}, token)
            elif kinds[-1] == "decision_due" and event["decisionDue"].get("seat") == 3:
                await ok(web, "Act", {"requestId": "x3", "tableId": TABLE, "roundId": round_id,
                                      "seat": 3, "hand": 0, "action": "stand"}, token)
            elif kinds[-1] == "round_finished":
                return kinds
    raise AssertionError(f"the table's stream ended before round_finished: {kinds}")


async def test_the_guides_table_code_plays_a_round_with_a_bet_behind(
        web: Web, studio: Studio) -> None:
    a, b = await web.new_player(), await web.new_player()
    ta, tb = await web.session_token(a), await web.session_token(b)
    blocks = guide_blocks()
    node = compile_program(studio, settings(blocks["settings"], web.base_url, ta)
                           + blocks["table"] + TABLE_EPILOGUE)
    await ok(web, "TakeSeat", {"requestId": "s3", "tableId": TABLE, "seat": 3}, tb)
    placed = (await ok(web, "PlaceBets", {"requestId": "b3", "tableId": TABLE,
                                          "bets": [{"seat": 3, "stake": "1000"}]}, tb))["result"]
    other = asyncio.create_task(_seat_three(web, tb, int(placed["seq"]),
                                            placed["snapshot"]["roundId"]))
    got, _ = await run_node(studio, node)
    kinds = await other
    assert got["tableId"] == TABLE and got["mine"] == 1
    # The Bet Behind's own events (placed, settled) are its player's only: seat 3's player is
    # not sent them (the seat's totals are announced while betting stays open).
    assert {"decision_due", "player_acted"} <= set(kinds)
    assert "behind_placed" not in kinds and "behind_settled" not in kinds and "" not in kinds
    # Seat 1 (1000) and the Bet Behind on seat 3 (1000) both win 1:1; seat 3's player too.
    assert await web.balances_when_paid({(a, "dev-operator"): START + 2000,
                                         (b, "dev-operator"): START + 1000}) == {
        (a, "dev-operator"): START + 2000, (b, "dev-operator"): START + 1000}
