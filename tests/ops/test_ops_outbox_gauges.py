"""The outbox gauges after real play: rounds with debits, credits and rollbacks against a real
PostgreSQL journal and the real sandbox wallet leave every outbox row final, so
``rgs_outbox_pending`` and ``rgs_outbox_oldest_pending_age_seconds`` read 0 and promtool shows
RgsOutboxBacklog and RgsOutboxStale staying quiet on what was sampled."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml
from ops_toolbox import OPS, run, tool
from prometheus_client import REGISTRY

from rgs.bootstrap import add_dev_operator_keys, build, connect_ops_journal
from rgs.config import RgsSettings
from rgs.engine import Action, BoxBet, Phase
from rgs.journal.migrate import SCHEMA
from rgs.journal.statements import OPEN_MOVEMENT
from rgs.observability.dbstats import OpsSampler
from rgs.service.errors import Unavailable
from rgs.service.model import ActCommand, CreateSessionCommand, DealCommand, VoidCommand
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.platforms import sandbox_platform
from support.sandbox import AUTH, SandboxWalletClient

ALICE = "demo-alice"
#: Player TS 9D (19) stands; dealer 6H 7C draws 9S and busts: the stake is paid even money.
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
#: Player 5S 6D (11) doubles and draws TS (21); dealer 6H TC (16) draws 9H and busts.
DOUBLE_WINS = ("5S", "6H", "6D", "TC", "TS", "9H")
#: Player TS 9D against dealer 6H 7C: the round waits for the player's decision.
WAITING = ("TS", "6H", "9D", "7C")


async def _balance(wallet: SandboxWalletClient) -> int:
    resp = await wallet.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=ALICE),
                                          metadata=AUTH)
    return int(resp.player.balance)


async def _play_rounds(settings: RgsSettings, wallet: SandboxWalletClient) -> None:
    """Three rounds: a win (debit, credit); a double whose debit timed out after the wallet
    applied it (rollback, a retried debit, credit); a round voided by the operator (rollback)."""
    app = await build(settings, platform=sandbox_platform({"dev-operator": wallet.target}
                                                          ).with_wallets(**{"dev-operator": {
                                                              "timeout_s": 0.5}}))
    try:
        await add_dev_operator_keys(app.journal)
        operator = await app.office.authenticate("rgs-dev-operator-key")
        made = await app.office.create_session(operator, CreateSessionCommand(
            request_id="s1", brand_id="demo-casino", player_id=ALICE))
        s = await app.game.authenticate(made.token)

        won = await app.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                                 boxes=(BoxBet(seat=1, stake=500),),
                                                 forced_cards=STAND_WINS))
        done = await app.game.act(s, ActCommand(request_id="a1", round_id=won.round_id,
                                                expected_seq=1, seat=1, hand=0,
                                                action=Action.STAND))
        assert done.view.phase is Phase.SETTLED and done.balance == 100_500

        doubled = await app.game.deal(s, DealCommand(
            request_id="d2", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=200),),
            forced_cards=DOUBLE_WINS))
        await wallet.control.SetFault(sandbox_pb2.SetFaultRequest(
            fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY,
                                    method=sandbox_pb2.WALLET_METHOD_DEBIT, remaining=1)),
            metadata=AUTH)
        double = ActCommand(request_id="a2", round_id=doubled.round_id, expected_seq=1, seat=1,
                            hand=0, action=Action.DOUBLE)
        with pytest.raises(Unavailable):
            await app.game.act(s, double)
        done = await app.game.act(s, double)
        assert (done.view.total_staked, done.view.total_paid) == (400, 800)

        waiting = await app.game.deal(s, DealCommand(
            request_id="d3", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=300),),
            forced_cards=WAITING))
        voided = await app.office.void_round(operator, VoidCommand(
            request_id="v1", brand_id="demo-casino", player_id=ALICE,
            round_id=waiting.round_id, reason="gauge test"))
        assert voided.round.status == "voided"
    finally:
        await app.close()


async def _outbox_rows(url: str) -> list[tuple[str, str]]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(f"SELECT kind, status FROM {SCHEMA}.wallet_transactions")
    finally:
        await conn.close()
    return sorted((r["kind"], r["status"]) for r in rows)


def _promtool_case(pending: float, oldest_age_s: float) -> dict[str, object]:
    """The sampled values held for an hour on two replicas; neither outbox alert may fire."""
    series = [{"series": f'{name}{{job="rgs", instance="{replica}"}}', "values": f"{value}x60"}
              for name, value in (("rgs_outbox_pending", pending),
                                  ("rgs_outbox_oldest_pending_age_seconds", oldest_age_s))
              for replica in ("a", "b")]
    quiet = [{"eval_time": at, "alertname": alert, "exp_alerts": []}
             for alert in ("RgsOutboxBacklog", "RgsOutboxStale") for at in ("20m", "40m", "60m")]
    return {"rule_files": [str(OPS / "prometheus" / "rules.yml")], "evaluation_interval": "1m",
            "tests": [{"name": "gauges sampled after real play", "interval": "1m",
                       "input_series": series, "alert_rule_test": quiet}]}


@pytest.mark.asyncio(loop_scope="session")
async def test_real_rounds_leave_the_outbox_gauges_at_zero_and_the_outbox_alerts_quiet(
        rgs_database_url: str, sandbox_wallet: SandboxWalletClient, tmp_path: Path) -> None:
    settings = RgsSettings(test_mode=True, database_url=rgs_database_url)
    await _play_rounds(settings, sandbox_wallet)
    assert await _balance(sandbox_wallet) == 100_000 + 500 + 400  # the voided stake came back

    rows = await _outbox_rows(rgs_database_url)
    win = [("debit", "booked"), ("credit", "applied")]
    # The stake, the double's debit rolled back after its timeout, its retry, the win.
    double = [("debit", "booked"), ("debit", "rolled_back"), ("rollback", "applied"),
              ("debit", "booked"), ("credit", "applied")]
    void = [("debit", "rolled_back"), ("rollback", "applied")]
    assert rows == sorted(win + double + void)
    # What the gauges used to count (every applied row as pending): never 0 after play.
    assert sum(status in ("pending", "unknown", "applied") for _, status in rows) == 4

    sampler = OpsSampler(await connect_ops_journal(settings))
    try:
        snapshot = await sampler.sample_once()
    finally:
        await sampler.close()
    assert snapshot is not None
    assert (snapshot.outbox_pending, snapshot.outbox_oldest_age_s) == (0, 0.0)
    assert snapshot.active_sessions == 1
    pending = REGISTRY.get_sample_value("rgs_outbox_pending")
    oldest = REGISTRY.get_sample_value("rgs_outbox_oldest_pending_age_seconds")
    assert (pending, oldest) == (0.0, 0.0)

    case = tmp_path / "outbox_after_play_test.yml"
    case.write_text(yaml.safe_dump(_promtool_case(pending, oldest), sort_keys=False))
    out = run([tool("promtool"), "test", "rules", str(case)])
    assert "SUCCESS" in out.stdout + out.stderr


def test_the_runbooks_look_for_open_outbox_rows_with_the_outbox_rule() -> None:
    for name in ("RgsOutboxBacklog", "RgsOutboxStale"):
        text = (OPS / "runbooks" / f"{name}.md").read_text("utf-8")
        queries = text.split("rgs.wallet_transactions WHERE ")[1:]
        assert queries, name
        assert all(q.startswith(OPEN_MOVEMENT) for q in queries), name
