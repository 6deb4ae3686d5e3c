"""The market's rules before a new round, and the session's position in a view: the one home
where a brand's jurisdiction profile (:mod:`rgs.service.jurisdiction`) is enforced for a solo
Deal and a table bet alike, in the player's journal (so no client, and no second replica, can
start a round the rule refuses).

In order: the profile's stake limit, the session's inactivity (AGCO 4.30), a reality check due,
one game at a time (UKGC RTS 14F) and the least time between the starts of two rounds (RTS 14G).
Under a profile without rules nothing is read.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime

from rgs.service.errors import NotAllowedNow, Unauthenticated
from rgs.service.jurisdiction import JurisdictionProfile
from rgs.service.model import PlayerPace, Session, SessionPosition
from rgs.service.ports import Clock, PlayerJournal


def check_stake(profile: JurisdictionProfile, currency: str, stake: int) -> None:
    """Refuse a round's stake above the profile's limit in the currency."""
    limit = profile.max_stake.get(currency)
    if limit is not None and stake > limit:
        raise NotAllowedNow(f"a round's stake is at most {limit} {currency} under "
                            f"{profile.id}", reason="STAKE_ABOVE_MARKET_LIMIT",
                            metadata={"max_stake": str(limit)})


async def before_round(pj: PlayerJournal, session: Session, profile: JurisdictionProfile, *,
                       stake: int, now: datetime, table_round: str = "") -> None:
    """Refuse a new round the market's rules do not allow now (the player's journal held;
    ``table_round``: a table bet's round, whose start the table's clock paces)."""
    check_stake(profile, session.currency, stake)
    if not profile.paces_rounds and not session.reality_check_s:
        return
    pace = await pj.pace(session.session_id, except_round=table_round)
    if not table_round and pace.last_table_start is not None:
        # A solo Deal: the last start of either kind. A table bet is checked against the
        # last solo start only: its round starts when betting closes, paced by the table.
        pace = replace(pace, last_round_start=max(
            pace.last_round_start or pace.last_table_start, pace.last_table_start))
    check_pace(pace, session, profile, now=now)


def check_pace(pace: PlayerPace, session: Session, profile: JurisdictionProfile, *,
               now: datetime) -> None:
    """The rules that read the player's pace (see the module's order)."""
    started = session.started_at or now
    if profile.idle_timeout_s is not None:
        last = pace.last_play or started
        if (now - last).total_seconds() >= profile.idle_timeout_s:
            raise Unauthenticated(f"the session expired after {profile.idle_timeout_s} s "
                                  "without play: open a new one", reason="SESSION_EXPIRED",
                                  metadata={"cause": "inactivity"})
    if session.reality_check_s:
        since = pace.reality_checked_at or started
        if (now - since).total_seconds() >= session.reality_check_s:
            raise NotAllowedNow("a reality check is due: show the player the session's time "
                                "and position, then AcknowledgeRealityCheck",
                                reason="REALITY_CHECK_DUE",
                                metadata={"elapsed_s": str(elapsed_s(started, now))})
    if profile.one_game_at_a_time and pace.open_rounds > 0:
        raise NotAllowedNow(f"one game at a time under {profile.id}: finish the round open in "
                            "another game first", reason="ANOTHER_GAME_IN_PROGRESS")
    if profile.min_round_interval_s > 0 and pace.last_round_start is not None:
        wait = (profile.min_round_interval_s
                - (now - pace.last_round_start).total_seconds())
        if wait > 0:
            wait_ms = math.ceil(wait * 1000)
            raise NotAllowedNow(f"the next round may start {wait_ms} ms from now (at least "
                                f"{profile.min_round_interval_s:g} s between the starts of "
                                f"two rounds under {profile.id})", reason="ROUND_TOO_SOON",
                                metadata={"wait_ms": str(wait_ms)})


def elapsed_s(started: datetime, now: datetime) -> int:
    """Whole seconds from ``started`` to ``now`` (never negative)."""
    return max(0, int((now - started).total_seconds()))


def position(journal_money: tuple[int, int], session: Session, clock: Clock, *,
                   round_staked: int = 0, round_paid: int = 0) -> SessionPosition:
    """The session's position: ``journal_money`` (staked, paid) as the journal holds it for
    the session's other rounds, plus this round's stakes and (once settled) its pay."""
    now = clock()
    started = session.started_at or now
    staked, paid = journal_money
    return SessionPosition(started_at=started, elapsed_s=elapsed_s(started, now),
                           staked=staked + round_staked, paid=paid + round_paid)
