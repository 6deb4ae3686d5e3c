"""``rgs play --table`` as two people use it: two terminal processes (players of two operators,
on two RGS replicas) at one vip-platinum table, driven by scripted keystrokes; every wallet
asserted to the cent against the round's results.

The round: A (dev-operator, seat 1) bets 10.00 + Perfect Pairs 1.00 and doubles 11 onto 21;
B (other-operator, seat 3) bets 20.00, bets 10.00 behind seat 1 following doubles, and stands
on 19. The dealer's 16 draws a ten and busts. A plays in English, B in German (``--lang de``):
every line B reads, the table, the events, the prompts and the amounts (``10,00 €``), is
German.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from e2e_servers import ROOT
from test_tables_e2e import CARDS, START, WALLET_AUTH, Tables, _table, tables_stack

from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.tables import snapshot

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "vip-cli"
KEYS = {"dev-operator": ("demo-casino", "rgs-dev-operator-key"),
        "other-operator": ("other-casino", "rgs-other-operator-key")}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def tstack(database_templates: DatabaseTemplates, tmp_path_factory: Any
                 ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("tcli")),
                            [_table(TABLE, betting_s=60.0, decision_s=30.0)]) as t:
        yield t


class Terminal:
    """A ``rgs play --table`` process: keystrokes in, its screen (stdout) collected."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.screen = ""
        self._seen = 0
        self._grew = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(4096):
            self.screen += chunk.decode()
            self._grew.set()

    async def expect(self, pattern: str, timeout: float = 20.0) -> str:
        """Wait until ``pattern`` (a regex) shows after what was already expected; fail with
        the screen since then when it does not."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    m = re.compile(pattern).search(self.screen, self._seen)
                    if m:
                        self._seen = m.end()
                        return m.group(0)
                    self._grew.clear()
                    await self._grew.wait()
        except TimeoutError:
            raise AssertionError(f"{pattern!r} did not show in {timeout} s; the screen since "
                                 f"the last match:\n{self.screen[self._seen:][-3000:]}") from None

    async def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def close(self) -> int:
        """Quit; when a bet is still in play the client asks first, and the answer is yes."""
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await self.type("q")
            await self.type("y")
        try:
            async with asyncio.timeout(30):
                code = await self.proc.wait()
        except TimeoutError:
            self.proc.kill()
            raise AssertionError(f"the client did not quit in 30 s after q, y; its screen's "
                                 f"end:\n{self.screen[-3000:]}") from None
        await self._reader
        return code


async def _terminal(t: Tables, replica: int, operator: str, pid: str,
                    forced: tuple[str, ...] = (), table: str = TABLE, nickname: str = "",
                    lang: str = "en") -> Terminal:
    await t.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
        metadata=WALLET_AUTH[operator])
    brand, key = KEYS[operator]
    args = ["-m", "rgs", "play", "--table", *([table] if table else []),
            "--address", t.stack.replicas[replica].target, "--brand", brand,
            "--operator-key", key, "--player", pid, "--ascii", "--lang", lang]
    if nickname:
        args += ["--nickname", nickname]
    if forced:
        args += ["--forced-cards", ",".join(forced)]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "services"), "PYTHONUNBUFFERED": "1"})
    return Terminal(proc)


async def _session_md(t: Tables, operator: str, pid: str) -> tuple[tuple[str, str], ...]:
    """A session of a new player at ``operator`` (a watcher)."""
    await t.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
        metadata=WALLET_AUTH[operator])
    brand, key = KEYS[operator]
    s = await t.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=brand, player_id=pid, currency="EUR"),
        metadata=(("authorization", f"Bearer {key}"),))
    return (("authorization", f"Bearer {s.session_token}"),)


async def _balance(t: Tables, operator: str, pid: str) -> int:
    got = await t.controls[operator].GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                               metadata=WALLET_AUTH[operator])
    return int(got.player.balance)


async def test_two_terminals_play_one_table_round_to_the_cent(tstack: Tables) -> None:
    t = tstack
    a = await _terminal(t, 0, "dev-operator", "cli-a", tuple(CARDS), nickname="Anna")
    b = await _terminal(t, 1, "other-operator", "cli-b", nickname="Ben", lang="de")
    try:
        await a.expect(r"Table vip-cli \(vip-platinum, 7 seats\)")
        await b.expect(r"Tisch vip-cli \(vip-platinum, 7 Plätze\): Einsätze 10,00\s€")
        await b.expect(r"Platz 7: \(frei\)")
        await a.type("sit 1")
        await a.expect(r"You took seat 1")
        await b.expect(r"Anna hat Platz 1 genommen")
        await b.type("sit 3")
        await a.expect(r"Ben took seat 3")
        await a.type("bet 10 pp 1")
        await a.expect(r"Bet taken\. Balance 9,989\.00 EUR\.")  # the answer and the event race
        await b.expect(r"Anna setzt 10,00\s€ auf Platz 1 \(\+ Perfect Pairs 1,00\s€\)")
        await b.type("bet 20")
        await b.type("behind 1 10 double")
        # B's Bet Behind is B's to see; A sees the seat's Bet Behinds together.
        await b.expect(r"Sie setzen 10,00\s€ hinter Platz 1")
        await a.expect(r"Bets behind: seat 1: 1 for 10\.00 EUR")
        # A's screen shows every seat's bets and its Bet Behinds together.
        await a.type("")
        await a.expect(r"Seat 1: Anna \(you\)  bet 10\.00 EUR \+ PP 1\.00 EUR\n"
                       r" +behind: 1 Bet Behind\(s\), 10\.00 EUR in all\n"
                       r"(.*\n)? +Seat 3: Ben  bet 20\.00 EUR")
        await b.type("")
        await b.expect(r"dahinter: Ben \(Sie\) 10,00\s€ \(")  # B's own, with its presets
        await a.type("deal")
        await b.expect(r"Anna ist bereit \(Platz 1\)")
        await b.type("deal")
        # A's turn: the legal actions with their costs; A doubles.
        await a.expect(r"Your turn \(seat 1 hand 1\):\n *\[h\] hit  \[s\] stand  "
                       r"\[d\] double \(10\.00 EUR\)")
        await a.type("d")
        await b.expect(r"Platz 1: verdoppelt \(\+10,00\s€\)")
        await b.expect(r"Sie folgen hinter Platz 1: \+10,00\s€")
        await b.expect(r"Sie sind am Zug \(Platz 3 Hand 1\):\n *\[h\] Karte  \[s\] stehen")
        await b.type("s")
        await a.expect(r"Seat 3 stood")
        await a.expect(r"The dealer turns over the hole card: 7S")
        await a.expect(r"The dealer gets 10C")  # 16 draws a ten and busts
        # Wrapped at 80 columns: read as one text, whatever the line breaks.
        done_a = " ".join((await a.expect(r"Round over: (.*\n){2}.*")).split())
        done_b = " ".join((await b.expect(r"Runde vorbei: (.*\n){2}.*")).split())
        # Each screen says the round in its player's words: "you" for oneself, names for others.
        assert ("Round over: you staked 21.00 EUR, paid 40.00 EUR; Ben staked 40.00 EUR, "
                "paid 80.00 EUR") in done_a, done_a
        assert "your net for the round: +19.00 EUR" in done_a, done_a
        assert ("Anna: gesetzt 21,00 €, ausgezahlt 40,00 €; Sie: gesetzt 40,00 €, ausgezahlt "
                "80,00 €") in done_b, done_b  # the no-break spaces read as spaces here
        assert "Ihr Ergebnis der Runde: +40,00 €" in done_b, done_b
        # Both screens saw the other seat's hands settle, each in its player's language.
        assert "Seat 1 won: paid 40.00 EUR" in a.screen
        assert "Seat 3 won: paid 40.00 EUR" in a.screen
        assert "Platz 1: gewonnen, ausgezahlt 40,00\u00a0€" in b.screen
        assert "Platz 3: gewonnen, ausgezahlt 40,00\u00a0€" in b.screen
        # B's screen has no English line: the table's own words are all German.
        for english in ("Seat ", " bets ", "Your turn", "Round over", "betting open", "(you)"):
            assert english not in b.screen, english
        assert "You bet 10.00 EUR on seat 1 (+ Perfect Pairs 1.00 EUR)" in a.screen
        # Neither screen carries a player id: the players are known by their names only.
        for term in (a, b):
            assert "cli-a" not in term.screen and "cli-b" not in term.screen
        # The balance is in the table's header, as the wallet has it after the round.
        await a.type("")
        await a.expect(r"\|  your balance 10,019\.00 EUR")
    finally:
        codes = [await a.close(), await b.close()]
        print("---- A\n" + a.screen + "\n---- B\n" + b.screen)  # shown when the test fails
    assert codes == [0, 0], a.screen[-2000:] + b.screen[-2000:]
    # q gave both seats back.
    assert "You left seat 1." in a.screen and "Sie haben Platz 3 verlassen." in b.screen
    watcher = await _session_md(t, "dev-operator", "cli-watch")
    assert list((await snapshot(t.tables[2], watcher, TABLE)).seats) == []
    # A: -10 -1 (Perfect Pairs lost) -10 (double), +40. B: -20 -10 behind -10 follow, +40 +40.
    assert await _balance(t, "dev-operator", "cli-a") == START - 2100 + 4000
    assert await _balance(t, "other-operator", "cli-b") == START - 4000 + 8000


async def test_play_table_without_an_id_lists_the_tables_and_a_wrong_id_says_what_to_do(
        tstack: Tables) -> None:
    t = tstack
    term = await _terminal(t, 1, "dev-operator", "cli-list", table="")
    await term.expect(r"vip-cli  vip-platinum  7 seats  EUR  bets 10\.00 EUR to 5,000\.00 EUR")
    await term.expect(r"Sit at one with: rgs play --table TABLE_ID")
    assert await term.close() == 0
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rgs", "play", "--table", "vip-nope", "--address",
        t.stack.replicas[0].target, "--player", "cli-list", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "services")})
    out, _ = await proc.communicate()
    assert proc.returncode != 0
    assert "'vip-nope' is not a table of demo-casino; its tables: vip-cli" in out.decode()
