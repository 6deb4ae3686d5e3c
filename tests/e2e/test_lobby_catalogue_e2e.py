"""A lobby's catalogue against a real server (issue 28): ListVariants and ListTables carry, for
the session's brand, each game's display name, a line about it, the brand's RTP from the PAR
sheet of the rules it plays, its limits in every currency the brand plays, its features (side
bets, Cash Out, Bet Behind, seats free now) and the path of a thumbnail the edge serves. The
display name and the line are in the session's language: a session launched in German gets
them from the German catalogue (English for a session CreateSession opened)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from e2e_servers import Stack, start_stack

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc as bj_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from rgs.locales import catalogue
from rgs.variants import VARIANTS
from rgs.variants.catalogue import DESCRIPTIONS
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")

OTHER = (("authorization", "Bearer rgs-other-operator-key"),)
WALLET = (("authorization", "Bearer sandbox-wallet-other-key"),)
#: The PAR sheets' main-game RTP of each variant as the sandbox's brands play it.
RTP = {"vegas-20-plus": 99.96, "classic-resplit": 99.59, "electronic-h17": 99.43,
       "power": 99.9, "vip-platinum": 99.29}
TABLE_LIMITS = bj.TableLimits(main_min=1000, main_max=500_000, side_min=100, side_max=50_000)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def stack(database_templates: DatabaseTemplates, tmp_path_factory: Any
                ) -> AsyncIterator[tuple[Stack, grpc.aio.Channel, grpc.aio.Channel]]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    dev_name, dev_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    table = {"id": "vip-lobby", "variant": "vip-platinum", "seats": 7, "currency": "EUR",
             "limits": {"main_min": 1000, "main_max": 500000, "side_min": 100,
                        "side_max": 50000},
             "brands": ["demo-casino", "other-casino"], "betting_s": 30.0, "decision_s": 5.0}
    s = await start_stack(rgs_db=rgs_db, wallet_dbs={"dev-operator": dev_db,
                                                     "other-operator": other_db},
                          replicas=1, logs=Path(tmp_path_factory.mktemp("lobby")),
                          tables=[table])
    rgs = grpc.aio.insecure_channel(s.replicas[0].target)
    wallet = grpc.aio.insecure_channel(s.wallets["other-operator"].target)
    try:
        yield s, rgs, wallet
    finally:
        await rgs.close()
        await wallet.close()
        s.stop()
        for name in (rgs_name, dev_name, other_name):
            database_templates.discard(name)


async def _session(rgs: grpc.aio.Channel, wallet: grpc.aio.Channel, pid: str
                   ) -> tuple[tuple[str, str], ...]:
    await sandbox_pb2_grpc.SandboxControlServiceStub(wallet).CreatePlayer(
        sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
            player_id=pid, currency="EUR", balance=100_000)), metadata=WALLET)
    made = await operator_pb2_grpc.OperatorServiceStub(rgs).CreateSession(
        op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="other-casino", player_id=pid,
                                currency="EUR"), metadata=OTHER)
    return (("authorization", f"Bearer {made.session_token}"),)


async def _launched(rgs: grpc.aio.Channel, wallet: grpc.aio.Channel, pid: str, language: str
                    ) -> tuple[tuple[str, str], ...]:
    """A session opened by a launch in ``language``."""
    await sandbox_pb2_grpc.SandboxControlServiceStub(wallet).CreatePlayer(
        sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
            player_id=pid, currency="EUR", balance=100_000)), metadata=WALLET)
    launch = await operator_pb2_grpc.OperatorServiceStub(rgs).CreateLaunch(
        op.CreateLaunchRequest(brand_id="other-casino", player_id=pid, currency="EUR",
                               variant_id="vip-platinum", language=language), metadata=OTHER)
    got = await bj_grpc.BlackjackServiceStub(rgs).RedeemLaunch(bj.RedeemLaunchRequest(
        launch_code=launch.url.partition("#launch=")[2]))
    return (("authorization", f"Bearer {got.session_token}"),)


async def test_list_variants_carries_the_brands_catalogue(
        stack: tuple[Stack, grpc.aio.Channel, grpc.aio.Channel]) -> None:
    _, rgs, wallet = stack
    md = await _session(rgs, wallet, "lobby-a")
    listed = await bj_grpc.BlackjackServiceStub(rgs).ListVariants(bj.ListVariantsRequest(),
                                                                  metadata=md)
    # The sandbox's other-casino offers two variants; vip-platinum with Perfect Pairs only and
    # without Cash Out (its options).
    assert [v.id for v in listed.variants] == ["classic-resplit", "vip-platinum"]
    for v in listed.variants:
        lobby = v.lobby
        assert lobby.display_name == v.name and lobby.description == DESCRIPTIONS[v.id]
        assert lobby.rtp_percent == pytest.approx(RTP[v.id], abs=1e-9)
        assert lobby.thumbnail_url == f"/thumbnails/{v.id}.svg"
        # other-casino plays EUR and USD: the limits of both, though the session is in EUR.
        assert [c.currency for c in lobby.limits] == ["EUR", "USD"]
        default = VARIANTS[v.id].limits  # the platform file gives other-casino none
        assert all((c.limits.main_min, c.limits.main_max, c.limits.side_min, c.limits.side_max)
                   == (default.main_min, default.main_max, default.side_min, default.side_max)
                   for c in lobby.limits)
        assert lobby.features.seats == 0 and not lobby.features.bet_behind
    by_id = {v.id: v.lobby.features for v in listed.variants}
    assert list(by_id["vip-platinum"].side_bets) == [bj.SIDE_BET_KIND_PERFECT_PAIRS]
    assert not by_id["vip-platinum"].cash_out
    assert not by_id["classic-resplit"].side_bets and not by_id["classic-resplit"].cash_out


async def test_list_tables_carries_the_catalogue_with_the_seats_free_now(
        stack: tuple[Stack, grpc.aio.Channel, grpc.aio.Channel]) -> None:
    _, rgs, wallet = stack
    md = await _session(rgs, wallet, "lobby-b")
    tables = table_pb2_grpc.TableServiceStub(rgs)
    before = (await tables.ListTables(tb.ListTablesRequest(), metadata=md)).tables
    assert [t.table_id for t in before] == ["vip-lobby"]
    lobby = before[0].lobby
    assert lobby.display_name == f"{VARIANTS['vip-platinum'].name} — vip-lobby"
    assert lobby.description == DESCRIPTIONS["vip-platinum"]
    assert lobby.rtp_percent == pytest.approx(99.29, abs=1e-9)
    assert lobby.thumbnail_url == "/thumbnails/vip-platinum.svg"
    assert [(c.currency, c.limits) for c in lobby.limits] == [("EUR", TABLE_LIMITS)]
    f = lobby.features
    assert (f.seats, f.seats_free, f.bet_behind, f.cash_out) == (7, 7, True, True)
    assert list(f.side_bets) == [bj.SIDE_BET_KIND_PERFECT_PAIRS,
                                 bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE]
    await tables.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id="vip-lobby", seat=2),
                          metadata=md)
    after = (await tables.ListTables(tb.ListTablesRequest(), metadata=md)).tables
    assert after[0].lobby.features.seats_free == 6


async def test_a_german_session_gets_the_lobby_in_german(
        stack: tuple[Stack, grpc.aio.Channel, grpc.aio.Channel]) -> None:
    _, rgs, wallet = stack
    md = await _launched(rgs, wallet, "lobby-de", "de")
    german = catalogue("de")["lobby"]
    listed = await bj_grpc.BlackjackServiceStub(rgs).ListVariants(bj.ListVariantsRequest(),
                                                                  metadata=md)
    assert listed.language == "de"
    assert [(v.id, v.lobby.display_name, v.lobby.description) for v in listed.variants] == [
        ("classic-resplit", "Player's Suite Blackjack", german["classic-resplit.description"]),
        ("vip-platinum", "VIP Platinum Blackjack",
         "Acht Decks mit Perfect Pairs, 21+3, Cash Out und Bet Behind an sieben Plätzen.")]
    assert all(v.lobby.description != DESCRIPTIONS[v.id] for v in listed.variants)
    tables = await table_pb2_grpc.TableServiceStub(rgs).ListTables(tb.ListTablesRequest(),
                                                                    metadata=md)
    assert tables.language == "de"
    lobby = tables.tables[0].lobby
    assert (lobby.display_name, lobby.description) == (
        "VIP Platinum Blackjack — vip-lobby", german["vip-platinum.description"])
    # Everything but the words is the same as in English.
    english = await bj_grpc.BlackjackServiceStub(rgs).ListVariants(
        bj.ListVariantsRequest(), metadata=await _session(rgs, wallet, "lobby-en"))
    assert english.language == ""
    for de, en in zip(listed.variants, english.variants, strict=True):
        assert (de.lobby.rtp_percent, list(de.lobby.limits), de.lobby.thumbnail_url) == (
            en.lobby.rtp_percent, list(en.lobby.limits), en.lobby.thumbnail_url)
        assert en.lobby.description == DESCRIPTIONS[en.id]
