"""The HTTP/JSON wallet adapter against a real HTTP wallet (hypercorn: keep-alive, chunked
answers, HTTP/2 over TLS): signed requests and answers, the contract's replay rules, final
refusals and unknown outcomes, and a round played through the adapter as bootstrap selects it
(an operator whose wallet is ``"kind": "http"`` in the platform file)."""

from __future__ import annotations

import hmac
import random
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio
from pydantic import SecretStr

from rgs.bootstrap import add_dev_operator_keys, build
from rgs.config import RgsSettings
from rgs.engine import Action, BoxBet, CardSource, Phase
from rgs.journal.memory import InMemoryJournal
from rgs.platform_file import DEFAULT_PLATFORM_FILE, load_platform
from rgs.rng.fair import CardOrders
from rgs.service.errors import NotAllowedNow, NotFound, Unavailable
from rgs.service.model import ActCommand, CreateSessionCommand, DealCommand
from rgs.wallet.http_wallet import (
    SIGNATURE_HEADER,
    HttpWallet,
    HttpWalletSettings,
    sign,
    sign_request,
)
from rgs.wallet.port import MoneyCall, MoneyKind, Party, WalletRefused, WalletUnavailable
from support.http_wallet import HttpWalletState, http_wallet_server
from support.tls import make_pki

SECRET = "test-http-wallet-secret"
ALICE = Party(operator_id="dev-operator", brand_id="demo-casino", player_id="alice",
              session_id="s1", currency="EUR")


@pytest.fixture
def state() -> HttpWalletState:
    return HttpWalletState(secret=SECRET, balances={"alice": 10_000})


@pytest_asyncio.fixture(loop_scope="session")
async def url(state: HttpWalletState) -> AsyncIterator[str]:
    async with http_wallet_server(state) as base:
        yield base


def call(kind: MoneyKind, txn: str, amount: int, debit: str = "") -> MoneyCall:
    return MoneyCall(kind=kind, transaction_id=txn, round_id="r1", party=ALICE, amount=amount,
                     round_closed=kind is MoneyKind.CREDIT, debit_transaction_id=debit)


async def test_debit_credit_rollback_move_the_balance_to_the_cent_and_a_replay_applies_once(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    first = await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1500))
    assert (first.balance, first.wallet_reference) == (8_500, "hw-1")
    again = await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1500))
    assert again.balance == 8_500 and state.balances["alice"] == 8_500
    assert again.wallet_reference == "hw-1"  # a replay answers the first call's reference
    assert (await wallet.move(call(MoneyKind.DEBIT, "r1:2:debit", 500))).balance == 8_000
    rolled = await wallet.move(call(MoneyKind.ROLLBACK, "r1:2:debit:rollback", 500,
                                    debit="r1:2:debit"))
    assert rolled.balance == 8_500
    paid = await wallet.move(call(MoneyKind.CREDIT, "r1:settle:credit", 3000))
    assert paid.balance == 11_500 and await wallet.balance(ALICE) == 11_500
    assert (rolled.wallet_reference, paid.wallet_reference) == ("hw-3", "hw-4")
    sent = [(m, b["transaction_id"]) for m, b in state.requests if m != "balance"]
    assert sent == [("debit", "r1:1:debit"), ("debit", "r1:1:debit"), ("debit", "r1:2:debit"),
                    ("rollback", "r1:2:debit:rollback"), ("credit", "r1:settle:credit")]


async def test_the_same_id_with_other_parameters_is_refused_as_a_duplicate(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1500))
    with pytest.raises(WalletRefused) as err:
        await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1600))
    assert err.value.reason == "DUPLICATE_TRANSACTION" and state.balances["alice"] == 8_500


async def test_a_rollback_of_an_unseen_debit_blocks_that_debit(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    rb = await wallet.move(call(MoneyKind.ROLLBACK, "r1:1:debit:rollback", 700,
                                debit="r1:1:debit"))
    assert rb.balance == 10_000
    with pytest.raises(WalletRefused) as err:
        await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 700))
    assert err.value.reason == "TRANSACTION_ROLLED_BACK" and state.balances["alice"] == 10_000


async def test_insufficient_funds_is_a_final_refusal_carrying_the_balance(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    with pytest.raises(WalletRefused) as err:
        await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 10_001))
    assert (err.value.reason, err.value.balance) == ("INSUFFICIENT_FUNDS", 10_000)


async def test_requests_are_signed_with_hmac_sha256(url: str) -> None:
    # The server refuses (BAD_SIGNATURE) what a client with another secret signs; that
    # client cannot verify the refusal either, so it reports an unknown outcome.
    wrong = HttpWallet(HttpWalletSettings(url=url, hmac_secret="another-secret-16chars",
                                          timeout_s=2))
    with pytest.raises(WalletUnavailable, match="bad signature"):
        await wrong.balance(ALICE)
    body = b'{"amount":1}'
    assert sign(SECRET, body) == hmac.new(SECRET.encode(), body, "sha256").hexdigest()
    assert SIGNATURE_HEADER == "X-Rgs-Signature"


async def test_an_answer_with_a_bad_signature_is_an_unknown_outcome(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    state.tamper_answers = True
    with pytest.raises(WalletUnavailable, match="bad signature"):
        await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1000))
    # It was applied all the same: only a rollback or a replay can tell.
    assert state.balances["alice"] == 9_000


@pytest.mark.parametrize("status", [500, 503, 429])
async def test_server_errors_are_unknown_outcomes(state: HttpWalletState, url: str,
                                                  status: int) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    state.fail_next.append(status)
    with pytest.raises(WalletUnavailable):
        await wallet.move(call(MoneyKind.CREDIT, "r1:settle:credit", 100))
    assert state.balances["alice"] == 10_000


async def test_a_slow_or_absent_wallet_is_an_unknown_outcome(
        state: HttpWalletState, url: str) -> None:
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=0.3))
    state.delay_next_s = 1.0
    with pytest.raises(WalletUnavailable, match="timed out"):
        await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 1000))
    absent = HttpWallet(HttpWalletSettings(url="http://127.0.0.1:9/w", hmac_secret=SECRET,
                                           timeout_s=0.5))
    with pytest.raises(WalletUnavailable):
        await absent.balance(ALICE)


async def test_an_https_wallet_is_verified_against_the_configured_ca(
        state: HttpWalletState, tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    async with http_wallet_server(state, tls=(pki.server_cert, pki.server_key)) as base:
        assert base.startswith("https://")
        wallet = HttpWallet(HttpWalletSettings(url=base, hmac_secret=SECRET, timeout_s=5,
                                               tls_ca_file=pki.ca_cert))
        assert (await wallet.move(call(MoneyKind.DEBIT, "r1:1:debit", 250))).balance == 9_750
        untrusted = HttpWallet(HttpWalletSettings(url=base, hmac_secret=SECRET, timeout_s=5))
        with pytest.raises(WalletUnavailable):
            await untrusted.move(call(MoneyKind.DEBIT, "r1:2:debit", 250))
        await wallet.close()
        await untrusted.close()
    assert state.balances["alice"] == 9_750
    # The wallet offers HTTP/2 over TLS (ALPN): the client speaks it.
    assert state.http_versions == ["2"]


async def test_chunked_answers_are_read_over_one_kept_alive_connection(
        state: HttpWalletState, url: str) -> None:
    """Found: the hand-written client opened a TCP (and TLS) connection per call and took a
    chunked answer (what many web frameworks send) for an unknown outcome, so a healthy wallet
    behind such a server saw every round rolled back. The test wallet answers chunked."""
    assert state.chunked
    wallet = HttpWallet(HttpWalletSettings(url=url, hmac_secret=SECRET, timeout_s=2))
    for i in range(5):
        done = await wallet.move(call(MoneyKind.DEBIT, f"r1:{i + 1}:debit", 100))
        assert done.balance == 10_000 - 100 * (i + 1)
    assert len(set(state.client_ports)) == 1, state.client_ports  # one connection, kept alive
    assert state.http_versions == ["1.1"] * 5  # no TLS here: HTTP/1.1
    await wallet.close()


def test_the_signature_binds_the_time_method_and_path_not_only_the_body() -> None:
    """A captured debit's body posted to /credit, or replayed later, no longer verifies."""
    body = b'{"amount":1000}'
    debit = sign_request(SECRET, "POST", "/rgs/debit", "1764460800", body)
    assert debit != sign_request(SECRET, "POST", "/rgs/credit", "1764460800", body)
    assert debit != sign_request(SECRET, "POST", "/rgs/debit", "1764460801", body)


class _Cards:
    def __init__(self) -> None:
        self._orders = CardOrders()

    def picker(self) -> Callable[[int], int]:
        return random.Random(3).randrange

    def fair_source(self, server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        return self._orders.source(server_seed_hex, client_seed, round_number, decks)


async def test_bootstrap_selects_the_http_wallet_and_a_round_settles_through_it_to_the_cent(
        state: HttpWalletState, url: str) -> None:
    journal = InMemoryJournal(clock=lambda: datetime.now(UTC), lock_wait_s=1)
    platform = load_platform(DEFAULT_PLATFORM_FILE).with_wallets(**{"dev-operator": {
        "kind": "http", "url": url, "hmac_secret": SecretStr(SECRET), "timeout_s": 2.0}})
    app = await build(RgsSettings(test_mode=True), journal=journal, cards=_Cards(),
                      platform=platform)
    await add_dev_operator_keys(journal)
    op = await app.office.authenticate("rgs-dev-operator-key")
    new = await app.office.create_session(op, CreateSessionCommand(
        request_id="s", brand_id="demo-casino", player_id="alice"))
    s = await app.game.authenticate(new.token)
    bet = (BoxBet(seat=1, stake=1000, twenty_plus=100),)
    # A debit answered 503 has an unknown outcome: the deal fails retryably, a rollback of
    # that debit is sent and the balance is unchanged.
    state.fail_next.append(503)
    with pytest.raises(Unavailable):
        await app.game.deal(s, DealCommand(request_id="d0", variant_id="vegas-20-plus",
                                           boxes=bet,
                                           forced_cards=("KS", "6H", "QD", "9C", "7S")))
    assert [m for m, _ in state.requests if m != "balance"] == ["debit", "rollback"]
    assert state.balances["alice"] == 10_000
    dealt = await app.game.deal(s, DealCommand(
        request_id="d1", variant_id="vegas-20-plus", boxes=bet,
        forced_cards=("KS", "6H", "QD", "9C", "7S")))
    assert dealt.balance == 8_900
    done = await app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                            expected_seq=dealt.view.seq, seat=1, hand=0,
                                            action=Action.STAND))
    assert done.view.phase is Phase.SETTLED and not done.payment_pending
    assert (done.view.total_staked, done.view.total_paid) == (1100, 2400)
    assert done.balance == state.balances["alice"] == 10_000 - 1100 + 2400
    await app.close()


@pytest.mark.parametrize(("word", "reason"), [
    ("LIMIT_EXCEEDED", "PLAYER_LIMIT_REACHED"), ("PLAYER_EXCLUDED", "PLAYER_EXCLUDED"),
    ("PLAYER_BLOCKED", "PLAYER_BLOCKED"), ("REALITY_CHECK_DUE", "REALITY_CHECK_DUE")])
async def test_the_http_wallets_word_on_the_player_keeps_its_own_reason_and_takes_nothing(
        state: HttpWalletState, url: str, word: str, reason: str) -> None:
    """The same reasons as through the gRPC wallet (issue 23): a refused stake starts no
    round and moves nothing."""
    journal = InMemoryJournal(clock=lambda: datetime.now(UTC), lock_wait_s=1)
    platform = load_platform(DEFAULT_PLATFORM_FILE).with_wallets(**{"dev-operator": {
        "kind": "http", "url": url, "hmac_secret": SecretStr(SECRET), "timeout_s": 2.0}})
    app = await build(RgsSettings(test_mode=True), journal=journal, cards=_Cards(),
                      platform=platform)
    await add_dev_operator_keys(journal)
    op = await app.office.authenticate("rgs-dev-operator-key")
    new = await app.office.create_session(op, CreateSessionCommand(
        request_id="s", brand_id="demo-casino", player_id="alice"))
    s = await app.game.authenticate(new.token)
    state.refuse_debits["alice"] = word
    with pytest.raises(NotAllowedNow) as err:
        await app.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                           boxes=(BoxBet(seat=1, stake=1000),),
                                           forced_cards=("TS", "6H", "9D", "7C")))
    assert (err.value.reason, err.value.metadata["wallet_reason"]) == (reason, word)
    assert state.balances["alice"] == 10_000
    with pytest.raises(NotFound):
        await app.game.get_round(s)
    await app.close()
