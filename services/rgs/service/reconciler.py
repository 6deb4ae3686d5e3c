"""The reconciler: drives every open outbox row to a final state, for every player, in the
background, so a credit whose call died (crash, restart, wallet outage) is paid without waiting
for the player to come back, and a debit orphaned by a crash is rolled back.

It takes each player's journal exclusively, like a call does, so it never races an in-flight
call: when it holds the journal, any open debit belongs to a call that died.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from rgs.service import money, voiding
from rgs.service.audit import SYSTEM, Action, AuditEntry, AuditTrail
from rgs.service.errors import Busy, ServiceError, Unavailable
from rgs.service.interrupted import InterruptedPolicies, last_step, round_session
from rgs.service.model import (
    InterruptedResolution,
    RequestScope,
    SettleCommand,
    StoredRequest,
    StoredRound,
)
from rgs.service.play import GameService
from rgs.service.ports import Clock, Journal, JournalError
from rgs.wallet.port import Party, Wallet

log = logging.getLogger(__name__)

#: Players reconciled per pass.
_BATCH = 100
#: Full batches reconciled one after the other before the interval's pause.
_AGAIN = 20


class Reconciler:
    """Periodic outbox recovery across players."""

    def __init__(self, *, journal: Journal, wallet: Wallet, clock: Clock,
                 min_age: timedelta = timedelta(seconds=30), game: GameService | None = None,
                 abandon_after: timedelta = timedelta(hours=1),
                 max_backoff: timedelta = timedelta(minutes=10),
                 interrupted: InterruptedPolicies | None = None,
                 audit: AuditTrail | None = None) -> None:
        self._journal = journal
        self._audit = audit
        self._wallet = wallet
        self._clock = clock
        self._min_age = min_age
        self._game = game
        #: Each operator's policy for abandoned rounds (without: every operator's rounds are
        #: completed after ``abandon_after``).
        self._policies = interrupted or InterruptedPolicies({}, default_after=abandon_after)
        self._max_backoff = max_backoff

    async def sweep_abandoned(self, *, limit: int = 100) -> int:
        """Finish rounds left unfinished longer than their operator's policy allows on the
        player's behalf (the same path as Settle: stand every hand, decline insurance, pay the
        win; an operator whose policy leaves them to it is skipped); void a round that cannot
        be continued. Returns how many rounds were finished or voided.

        The journal keeps who finished the round: the sweeper's decisions are committed under
        the request id ``sweep:{round_id}``, an automatic void under ``autovoid:{round_id}``
        with a ``RoundVoided`` event giving the reason.
        """
        if self._game is None:
            return 0
        done = 0
        for r in await self._interrupted(limit):
            try:
                result = await self._game.settle(round_session(r), SettleCommand(
                    request_id=f"sweep:{r.round_id}", round_id=r.round_id),
                    scope=RequestScope.SYSTEM)
                log.info("round %s finished on the player's behalf", r.round_id)
                await self._record_completion(r, result.view.total_paid)
                done += 1
            except (Busy, JournalError) as exc:
                log.warning("sweep of round %s postponed: %s", r.round_id, exc)
            except Unavailable as exc:
                if exc.reason != "ROUND_UNRECOVERABLE":  # e.g. no certified RNG right now
                    log.warning("sweep of round %s postponed: %s", r.round_id, exc)
                    continue
                done += await self._void_stuck(r, exc)
            except ServiceError as exc:
                # The engine refuses every way forward: the round is a malfunction.
                done += await self._void_stuck(r, exc)
            except Exception:
                # A bug met in one round must not stop the sweep of every other (the same
                # round comes first again on every pass): log it loudly and go on.
                log.exception("sweep of round %s failed", r.round_id)
        return done

    async def _record_completion(self, r: StoredRound, total_paid: int) -> None:
        """An audit row for an interrupted round the RGS completed by its operator's policy
        (once: a completion swept again records nothing more)."""
        if self._audit is None:
            return
        after = self._policies.of(r.operator_id).after
        await self._audit.record_change(AuditEntry(
            actor=SYSTEM, action=Action.ROUND_RESOLVED, subject=f"round:{r.round_id}",
            reason=f"interrupted: completed by the operator's policy, "
                   f"{int(after.total_seconds() // 60)} minutes after its last step",
            operator_id=r.operator_id,
            details={"resolution": "complete", "by": "policy", "brand_id": r.brand_id,
                     "player_id": r.player_id, "total_paid": str(total_paid)}),
            first_action=Action.ROUND_RESOLVED)

    async def _interrupted(self, limit: int) -> list[StoredRound]:
        """The rounds due for completion, oldest first, by each operator's policy."""
        now = self._clock()
        operators = self._policies.operators
        if not operators:  # no platform file's operators: one policy for all
            return await self._journal.abandoned_rounds(
                before=now - self._policies.of("").after, limit=limit)
        rounds: list[StoredRound] = []
        for op in operators:
            policy = self._policies.of(op)
            if policy.resolution is InterruptedResolution.COMPLETE:
                rounds += await self._journal.abandoned_rounds(
                    before=now - policy.after, limit=limit, operator_id=op)
        rounds.sort(key=last_step)
        return rounds[:limit]

    async def _void_stuck(self, r: StoredRound, exc: ServiceError) -> int:
        """Void a round the sweeper cannot continue: roll back its stakes, pay nothing."""
        reason = f"automatic void: {exc.reason}: {exc}"[:200]
        log.error("round %s cannot be continued; voiding it: %s", r.round_id, exc)
        try:
            async with self._journal.player(r.player_key) as pj:
                stored = await pj.get_round(r.round_id)
                if stored is None or stored.finished:
                    return 0
                await voiding.void(pj, stored, reason=reason, request=StoredRequest(
                    request_id=f"autovoid:{r.round_id}", method="void_round",
                    request_hash="", response="", scope=RequestScope.SYSTEM))
                party = Party(operator_id=stored.operator_id, brand_id=stored.brand_id,
                              player_id=stored.player_id, session_id=stored.session_id,
                              currency=stored.currency)
                await money.reconcile(pj, self._wallet, party, await pj.open_movements())
            await voiding.record_void(self._audit, SYSTEM, stored, reason=reason,
                                      request_id=f"autovoid:{r.round_id}")
        except (ServiceError, JournalError) as void_exc:
            log.warning("automatic void of round %s postponed: %s", r.round_id, void_exc)
            return 0
        return 1

    async def run_once(self, *, limit: int = _BATCH) -> int:
        """Reconcile players with an outbox row due for another call (open for longer than
        ``min_age``, doubled for every attempt after the first, at most ``max_backoff``);
        return how many players were handled."""
        keys = await self._journal.players_with_open_movements(
            now=self._clock(), min_age=self._min_age, max_backoff=self._max_backoff,
            limit=limit)
        # Each operator's players are worked through on their own, side by side: one
        # operator's slow or dead wallet never holds up another operator's open rows.
        by_operator: dict[str, list[str]] = {}
        for key in keys:
            by_operator.setdefault(key.partition("/")[0], []).append(key)
        counts = await asyncio.gather(*(self._reconcile_players(ks)
                                        for ks in by_operator.values()))
        return sum(counts)

    async def _reconcile_players(self, keys: list[str]) -> int:
        done = 0
        for key in keys:
            try:
                async with self._journal.player(key) as pj:
                    rows = await pj.open_movements()
                    if rows:
                        # Each row carries its own brand, session and currency; the wallet
                        # knows the player by the operator's id (the key is operator/player).
                        operator_id, _, player_id = key.partition("/")
                        party = Party(operator_id=operator_id, brand_id=rows[0].brand_id,
                                      player_id=player_id, session_id=rows[0].session_id,
                                      currency=rows[0].currency)
                        await money.reconcile(pj, self._wallet, party, rows)
                done += 1
            except JournalError as exc:
                log.warning("reconcile of %s postponed: %s", key, exc)
        return done

    async def run_forever(self, interval_s: float) -> None:
        """Run :meth:`run_once` (again at once while it finds a full batch) and
        :meth:`sweep_abandoned` every ``interval_s`` seconds until cancelled."""
        while True:
            try:
                # A full batch (a settlement of a thousand players whose replica died): the
                # next one at once, not after the interval (a few in a row at most, should
                # the same players come back).
                for _ in range(_AGAIN):
                    if await self.run_once(limit=_BATCH) < _BATCH:
                        break
                await self.sweep_abandoned()
            except JournalError as exc:
                log.warning("reconciler pass failed: %s", exc)
            except Exception:
                # This loop is what pays open wins and rolls back orphaned stakes: an
                # unexpected error fails one pass, never the loop.
                log.exception("reconciler pass failed")
            await asyncio.sleep(interval_s)
