"""``rgs play`` as a person uses it: scripted keystrokes against real RGS and wallet processes."""

from __future__ import annotations

import pytest
from e2e_clients import Clients
from test_play_e2e import OPERATOR, new_player, session, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.terminal import i18n
from rgs.terminal.play import Player

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _player(e2e: Clients, pid: str, variant: str, keys: list[str],
                  forced: list[str]) -> tuple[Player, list[str]]:
    md = await session(e2e, pid)
    token = md[0][1].removeprefix("Bearer ")
    listed = await e2e.games[0].ListVariants(bj.ListVariantsRequest(), metadata=md)
    feed, out = iter(keys), []

    def ask(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    v = next(x for x in listed.variants if x.id == variant)
    return Player(stub=e2e.games[0], token=token, variant=v, currency=listed.currency,
                  ask=ask, say=out.append, ascii_only=True, forced_cards=tuple(forced)), out


async def test_terminal_client_plays_a_split_round_and_shows_the_balance(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=50_000)
    # stake 2.00; split eights; hand 1 (8+3) doubles; hand 2 (8+T) stands; dealer 6+T+7 busts
    player, out = await _player(
        e2e, pid, "classic-resplit",
        ["2.00", "p", "d", "s", "q"],
        ["8S", "6H", "8D", "TC", "3C", "TH", "TD", "7D"])
    assert await player.run() == 0
    text = "\n".join(out)
    assert "[p] split (2.00 EUR)" in text and "[d] double (2.00 EUR)" in text
    assert "Seat 1 hand 1: 8S 3C 10H  (21)  stake 4.00 EUR doubled  win → 8.00 EUR" in text
    assert "Seat 1 hand 2: 8D 10D  (18)  stake 2.00 EUR  win → 4.00 EUR" in text
    assert "You won 6.00 EUR. Balance 506.00 EUR." in text
    assert await wallet_balance(e2e, pid) == 50_600


async def test_terminal_client_refuses_a_bad_amount_and_offers_insurance(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=10_000)
    player, out = await _player(
        e2e, pid, "classic-resplit",
        ["1.234", "abc", "1", "i", "q"],
        ["9S", "AH", "9D", "KC"])
    assert await player.run() == 0
    text = "\n".join(out)
    assert "EUR has 2 decimals" in text and "'abc' is not an amount" in text
    assert "[i] insure (0.50 EUR)  [n] no insurance" in text
    # insured 0.50 pays 1.50; the main 1.00 loses to the dealer blackjack: net 0.00
    assert "Push: your stake is back. Balance 100.00 EUR." in text
    assert await wallet_balance(e2e, pid) == 10_000


async def test_terminal_client_offers_rebet_and_ride_bet_after_a_win(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=50_000)
    # every deal: player 10+9 stands, dealer 6+10+10 busts: the 19 wins
    player, out = await _player(
        e2e, pid, "classic-resplit",
        ["3.00", "s", "r", "s", "", "s", "q"],
        ["TS", "6H", "9D", "TC", "TD"])
    assert await player.run() == 0
    text = "\n".join(out)
    assert "Stake (Enter = rebet 3.00 EUR, r = ride bet 6.00 EUR, q = quit)" in text
    assert "stake 6.00 EUR  win → 12.00 EUR" in text  # the ride bet: 3.00 stake + 3.00 won
    assert "Stake (Enter = rebet 6.00 EUR, r = ride bet 12.00 EUR, q = quit)" in text
    # +3.00, +6.00, then the rebet of 6.00 wins +6.00
    assert await wallet_balance(e2e, pid) == 50_000 + 300 + 600 + 600


async def test_terminal_client_checks_the_table_limits_in_major_units(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=50_000)
    # vip-platinum's EUR limits: main 10.00 to 5,000.00, side bets 1.00 to 500.00; nothing
    # outside them is sent.
    player, out = await _player(
        e2e, pid, "vip-platinum",
        ["1.00", "10.00", "0.50", "", "", "s", "q"],
        ["TS", "6H", "9D", "TC", "TD"])
    assert await player.run() == 0
    text = "\n".join(out)
    assert "The main bet must be from 10.00 EUR to 5,000.00 EUR at this table." in text
    assert ("The Perfect Pairs bet must be from 1.00 EUR to 500.00 EUR at this table. "
            "Press Enter for no Perfect Pairs bet.") in text
    assert "Perfect Pairs stake (1.00 EUR to 500.00 EUR, Enter = none): " in text
    assert "1000..500000" not in text  # no amount in minor units
    assert "You won 10.00 EUR. Balance 510.00 EUR." in text
    assert await wallet_balance(e2e, pid) == 50_000 + 1000


async def test_terminal_client_tells_a_refused_bet_in_words(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=500)
    player, out = await _player(e2e, pid, "classic-resplit", ["10.00", "q"], [])
    assert await player.run() == 0
    assert ("Refused: Your balance is too low for this bet. Lower the bet or add funds."
            in out)
    assert await wallet_balance(e2e, pid) == 500


async def test_terminal_client_under_ukgc_shows_the_position_and_the_wait_left(
        e2e: Clients) -> None:
    """demo-casino-uk (ukgc): the session's time and net position under every round; a Deal
    sooner than 5 s after the last start is refused with the wait left and dealt only when the
    player deals again (here: not at all)."""
    pid = await new_player(e2e, balance=50_000, currency="GBP")
    made = await e2e.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id="demo-casino-uk", player_id=pid), metadata=OPERATOR)
    md = (("authorization", f"Bearer {made.session_token}"),)
    listed = await e2e.games[0].ListVariants(bj.ListVariantsRequest(), metadata=md)
    feed, out = iter(["3.00", "s", "3.00", "q"]), []

    def ask(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    v = next(x for x in listed.variants if x.id == "classic-resplit")
    player = Player(stub=e2e.games[0], token=made.session_token, variant=v,
                    currency=listed.currency, ask=ask, say=out.append, ascii_only=True,
                    forced_cards=("TS", "6H", "9D", "TC", "TD"))
    assert await player.run() == 0
    text = "\n".join(out)
    assert "staked 3.00 GBP · paid 6.00 GBP · net +3.00 GBP" in text
    assert "Session 0:00:0" in text
    assert "The next round can start in" in text
    assert await wallet_balance(e2e, pid) == 50_300  # one round only


async def test_terminal_client_plays_in_german_with_german_amounts(e2e: Clients) -> None:
    """``rgs play --lang de``: the words and the amounts German (``1.000,00 €``), a refusal in
    German, and the wallet to the cent."""
    pid = await new_player(e2e, balance=150_000)
    i18n.use("de")
    try:
        # 2000.00 is above the limits; 3,00 (German decimals) stands on 19; dealer 6+T+T busts
        player, out = await _player(e2e, pid, "classic-resplit", ["2000", "3,00", "s", "q"],
                                    ["TS", "6H", "9D", "TC", "TD"])
        assert await player.run() == 0
    finally:
        i18n.use("en")
    text = "\n".join(out)
    assert "Einsatz (Enter = 1,00\u00a0€, q = Ende): " in text
    assert "Haupteinsatz: von 1,00\u00a0€ bis 1.000,00\u00a0€ an diesem Tisch." in text
    assert "[h] Karte  [s] stehen" in text
    assert "Sie haben 3,00\u00a0€ gewonnen. Guthaben 1.503,00\u00a0€." in text
    assert await wallet_balance(e2e, pid) == 150_300


async def test_terminal_client_resumes_an_unfinished_round_and_writes_80_columns(
        e2e: Clients) -> None:
    """A round left open (the player typed q mid-round) is resumed by the next start (asked
    with if_unfinished: none is an empty answer, not an error); everything fits 80 columns."""
    pid = await new_player(e2e, balance=10_000)
    first, out = await _player(e2e, pid, "classic-resplit", ["2.00", "q"],
                               ["TS", "6H", "7D", "7C"])
    assert await first.run() == 0
    assert "Resuming your unfinished round." not in out
    again, later = await _player(e2e, pid, "classic-resplit", ["s", "f", "q"], [])
    assert await again.run() == 0
    text = "\n".join(later)
    assert "Resuming your unfinished round." in text
    # 17 stands against the dealer's 6+7 that draws: forced cards never verify, f says so.
    assert "No provably fair round to show yet" in text
    assert [line for line in (*out, *later) for line in line.splitlines()
            if len(line) > 80] == []
