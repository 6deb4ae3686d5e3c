"""Drawing a shared table on a terminal: pure functions from the table's typed snapshot and
events (``rgs.table.v1``) to text. Whose seat is the player's own comes from the server
(``TablePlayer.you``); nothing here compares ids."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.terminal import i18n, render
from rgs.terminal.render import (
    card,
    fit,
    money,
    position,
    round_lines,
    short_hash,
    side_name,
    wrap,
)

#: The table's phase in the header, by the catalogue's ``tphase.<NAME>``.
_PHASES = {tb.TABLE_PHASE_IDLE: "IDLE", tb.TABLE_PHASE_BETTING: "BETTING",
           tb.TABLE_PHASE_INSURANCE: "INSURANCE", tb.TABLE_PHASE_PLAYING: "PLAYING"}
#: A Bet Behind's insurance preset, by the catalogue's ``tpreset.<name>``.
_PRESETS = {tb.BEHIND_INSURANCE_UNSPECIFIED: "never", tb.BEHIND_INSURANCE_NEVER: "never",
            tb.BEHIND_INSURANCE_ALWAYS: "always", tb.BEHIND_INSURANCE_ASK: "ask"}
#: Why a seat was given back, by the web table's ``release.<NAME>_you``/``_other``.
_RELEASES = {tb.SEAT_RELEASE_SAT_OUT: "SAT_OUT", tb.SEAT_RELEASE_AWAY: "AWAY",
             tb.SEAT_RELEASE_SESSION_EXPIRED: "SESSION_EXPIRED"}


def _web(key: str, fallback: str, **values: object) -> str:
    """A line both clients say, from the web section (the table's history says the same
    events), placeholders filled; ``fallback`` (a web key) when ``key`` has no words."""
    text = i18n.web_word(key) or i18n.web_word(fallback) or key
    return text.format(**values)


def _said(key: str, p: tb.TablePlayer, **values: object) -> str:
    """An event said to the player (``<key>_you``) or about another (``<key>_other``)."""
    who = p.display_name or i18n.web_word("event.someone") or ""
    return _web(f"{key}_{'you' if p.you else 'other'}", key, who=who, **values)


def _enum_word(prefix: str, enum: Any, value: int, strip: str, fallback: str) -> str:
    """The web section's word for an enum value (``settled.WIN``), else ``<prefix>.<fallback>``."""
    found = enum.DESCRIPTOR.values_by_number.get(value)
    name = found.name.removeprefix(strip) if found else fallback
    return i18n.web_word(f"{prefix}.{name}") or i18n.web_word(f"{prefix}.{fallback}") or ""


def phase_word(phase: int) -> str:
    """The table's phase in the active language."""
    return i18n.say(f"tphase.{_PHASES.get(tb.TablePhase.ValueType(phase), 'IDLE')}")


def seconds_left(deadline: Timestamp | None, now: datetime) -> int | None:
    """Whole seconds until ``deadline`` (None without one; never negative)."""
    if deadline is None or not (deadline.seconds or deadline.nanos):
        return None
    left = (deadline.ToDatetime(tzinfo=now.tzinfo) - now).total_seconds()
    return max(0, int(left + 0.999))


def my_seat(snap: tb.TableSnapshot) -> int | None:
    """The caller's seat, as the server marks it."""
    return next((s.seat for s in snap.seats if s.player.you), None)


def shared_table(snap: tb.TableSnapshot, *, seats: int, currency: str, now: datetime,
                 balance: int | None = None, ascii_only: bool = False) -> str:
    """A shared table from its snapshot: the balance, every seat with its player (you marked),
    Hot Players count, bets, Bet Behinds and Deal Now; the round's dealer and hands; whose turn
    and the time left."""
    cur = currency
    say = i18n.say
    left = seconds_left(snap.deadline if snap.HasField("deadline") else None, now)
    head = say("ttable_head", id=snap.table_id, n=snap.round_no, phase=phase_word(snap.phase))
    if left is not None and snap.phase != tb.TABLE_PHASE_IDLE:
        head += say("tleft", s=left)
    if balance is not None:
        head += say("tbalance", amount=money(balance, cur))
    lines = [head]
    taken = {s.seat: s for s in snap.seats}
    bets = {b.seat: b for b in snap.bets}
    totals = {t.seat: t for t in snap.behind_totals}
    view = snap.round if snap.HasField("round") else None
    to_act = view.to_act.seat if view is not None and view.HasField("to_act") else None
    you = say("tyou")
    for n in range(1, seats + 1):
        s = taken.get(n)
        mark = "▶" if n == to_act else " "
        seat = say("seat", n=n)
        if s is None:
            lines.append(f" {mark}{seat}: {say('tfree')}")
            continue
        who = f"{s.player.display_name}{you if s.player.you else ''}"
        hot = "  " + say("hot", n=s.hot) if s.hot else ""
        note = "  " + say("tleaving") if s.leaving else (
            "  " + say("tsat_out", n=s.sat_out) if s.sat_out and s.player.you else "")
        line = f" {mark}{seat}: {who}{hot}{note}"
        b = bets.get(n)
        if b is not None:
            line += "  " + say("tseat_bet", amount=money(b.stake, cur))
            for amount, label in ((b.perfect_pairs, "PP"), (b.twenty_one_plus_three, "21+3"),
                                  (b.twenty_plus, "20+")):
                if amount:
                    line += f" + {label} {money(amount, cur)}"
            if b.deal_now:
                line += f"  [{i18n.web_word('shared.deal_now')}]"
        lines.append(line)
        total = totals.get(n)
        if total is not None:
            lines.append("      " + say("tbehind_totals", n=total.bettors,
                                         amount=money(total.staked, cur)))
        for bb in snap.behind:  # the player's own
            if bb.seat == n:
                presets = [say(p) for p, on in (("tfollows_doubles", bb.follow_double),
                                                ("tfollows_splits", bb.follow_split)) if on]
                presets.append(say("tbehind_insurance",
                                   preset=say(f"tpreset.{_PRESETS[bb.insurance]}")))
                lines.append("      " + say(
                    "tbehind_line", who=bb.player.display_name + (you if bb.player.you else ""),
                    amount=money(bb.stake, cur), presets=", ".join(presets)))
    if view is not None:
        lines.extend(round_lines(view, ascii_only))
    if snap.HasField("session"):
        lines.append("  " + position(snap.session, cur))
    lines = [fit(line) for line in lines]
    lines.extend(fairness_lines(snap))
    return "\n".join(lines)


def fairness_lines(snap: tb.TableSnapshot) -> list[str]:
    """The snapshot's provably fair lines, at most two at 80 columns (hashes shortened: ``f``
    shows them whole): the round's commitment while it is open, else the next round's; the
    last round's revealed seed."""
    lines = []
    f = snap.fair
    if snap.HasField("fair") and f.commitment:
        client = (i18n.say("tfair_client", seed=short_hash(f.client_seed)) if f.client_seed
                  else "")
        lines.append(i18n.say("tfair_round", n=f.round_number,
                              commitment=short_hash(f.commitment), client=client))
    elif snap.next_commitment:
        lines.append(i18n.say("tfair_next", commitment=short_hash(snap.next_commitment)))
    if snap.HasField("last_round") and snap.last_round.fair.server_seed:
        lines.append(i18n.say("tfair_last", id=snap.last_round.round_id,
                              seed=short_hash(snap.last_round.fair.server_seed)))
    return [fit("  " + line) for line in lines]


def fairness_full(last: tb.LastRound | None) -> str:
    """The last round's provably fair values whole and how to check them (``f``)."""
    if last is None or not last.round_id or not last.fair.server_seed:
        return render.fairness_full("", None)
    return render.fairness_full(last.round_id, last.fair)


def _opened(f: tb.TableFairness) -> str:
    if not f.commitment:
        return ""
    return (f"\n    {i18n.say('tfair_opened', n=f.round_number)}\n      {f.commitment}")


def _closed(f: tb.TableFairness) -> str:
    if not f.commitment:
        return ""
    if not f.verifiable:
        return f"\n    {i18n.say('tfair_forced')}"
    if f.server_seed:
        return (f"\n    {i18n.say('tfair_closed')}\n      {f.server_seed}\n"
                + wrap(i18n.say("tfair_check"), indent="    "))
    return "\n    " + i18n.say("tfair_client_only", seed=f.client_seed or i18n.say("tnone"))


def _hand(seat: int, hand: int) -> str:
    return i18n.say("seat", n=seat) if hand == 0 else i18n.say("seat_hand", n=seat, h=hand + 1)


def table_event(ev: tb.TableEvent, currency: str, *,
                ascii_only: bool = False) -> str | None:
    """One line, as a player would say it, for an event a player should notice (None for
    the others): the web table's history line (the catalogue's ``event.*``), with the
    terminal's own for the cards dealt, the fairness record and the round's results."""
    line = _event_line(ev, currency, ascii_only)
    return line[:1].upper() + line[1:] if line else None


def _sides(e: tb.BetPlaced, cur: str) -> str:
    sides = [f"{name} {money(a, cur)}" for a, name in (
        (e.perfect_pairs, side_name(bj.SIDE_BET_KIND_PERFECT_PAIRS)),
        (e.twenty_one_plus_three, side_name(bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE)),
        (e.twenty_plus, side_name(bj.SIDE_BET_KIND_TWENTY_PLUS))) if a]
    return f" (+ {', '.join(sides)})" if sides else ""


def _finished(e: tb.RoundFinished, cur: str) -> str:
    say = i18n.say
    parts = [say("tresult_you" if r.player.you else "tresult_other", who=r.player.display_name,
                 staked=money(r.staked, cur), paid=money(r.paid, cur)) for r in e.results]
    mine = [r for r in e.results if r.player.you]
    net = ""
    if mine:
        n = mine[0].paid - mine[0].staked
        net = "\n    " + say("tnet", net=f"{'+' if n > 0 else ''}{money(n, cur)}")
    over = say("tover", results="; ".join(parts)) if parts else say("tover_none")
    return over + net + _closed(e.fair)


def _acted(action: int, fallback: str = "fallback") -> str:
    return _enum_word("acted", bj.Action, action, "ACTION_", fallback)


def _event_line(ev: tb.TableEvent, currency: str, ascii_only: bool) -> str | None:
    cur = currency
    kind = ev.WhichOneof("event")
    if kind is None:
        return None
    e = getattr(ev, kind)
    if kind == "card_dealt":
        if e.face_down:
            return i18n.say("tev_hole_down")
        got = card(e.card, ascii_only=ascii_only)
        return i18n.say("tev_dealer_gets", card=got) if not e.HasField("seat") else \
            i18n.say("tev_hand_gets", hand=_hand(e.seat, e.hand), card=got)
    if kind == "seat_taken":
        return _said("event.seat_taken", e.player, seat=e.seat)
    if kind == "seat_left":
        release = _RELEASES.get(e.reason)
        if release is None:
            return _said("event.seat_left", e.player, seat=e.seat)
        why = _web(f"release.{release}_{'you' if e.player.you else 'other'}", "")
        return _said("event.seat_released", e.player, seat=e.seat, why=why)
    if kind == "betting_opened":
        return _web("event.betting_opened", "", round=e.round_no) + _opened(e.fair)
    if kind == "bet_placed":
        return _said("event.bet_placed", e.player, stake=money(e.stake, cur), seat=e.seat,
                     sides=_sides(e, cur))
    if kind == "behind_placed":
        return _said("event.behind_placed", e.player, stake=money(e.stake, cur), seat=e.seat)
    if kind == "behind_totals":
        return _web("event.behind_totals", "", seats=", ".join(
            _web("event.behind_totals_seat", "", seat=x.seat, n=x.bettors,
                 amount=money(x.staked, cur)) for x in e.seats))
    if kind == "deal_now":
        return _said("event.deal_now", e.player, seat=e.seat)
    if kind == "betting_closed":
        closed = (_web("event.betting_closed", "", seats=", ".join(map(str, e.seats)))
                  if e.seats else _web("event.betting_closed_none", ""))
        return closed + _closed(e.fair)
    if kind == "behind_refunded":
        why = _web("refund.seat_released" if e.reason == "seat_released" else "refund.sat_out",
                   "")
        return _said("event.behind_refunded", e.player, seat=e.seat,
                     amount=money(e.amount, cur), why=why)
    if kind == "player_acted":
        cost = f" (+{money(e.stake_added, cur)})" if e.stake_added else ""
        return _web("event.acted", "", hand=_hand(e.seat, e.hand), action=_acted(e.action),
                    cost=cost)
    if kind == "behind_stake_added":
        return _said("event.follows", e.player, seat=e.seat, amount=money(e.amount, cur))
    if kind == "behind_follow_skipped":
        return _said("event.follow_skipped", e.player, seat=e.seat)
    if kind == "decision_due":
        return i18n.say("tev_to_act", seat=e.seat)
    if kind == "decision_timed_out":
        return _web("event.timed_out", "", seat=e.seat, action=_acted(e.action, "STAND"))
    if kind == "insurance_decided":
        behind = _web("event.behind_suffix", "") if e.behind else ""
        return _said("event.insurance_take" if e.take else "event.insurance_decline", e.player,
                     seat=e.seat, behind=behind)
    if kind == "hole_card_revealed":
        return _web("event.hole", "", card=card(e.card, ascii_only=ascii_only))
    if kind == "hand_settled":
        return _web("event.hand_settled", "", hand=_hand(e.seat, e.hand),
                    outcome=_enum_word("settled", bj.Outcome, e.outcome, "OUTCOME_", "fallback"),
                    paid=money(e.payout, cur))
    if kind == "side_bet_settled":
        name = side_name(e.kind)
        if not e.payout:
            return _web("event.side_lost", "", seat=e.seat, name=name)
        line = i18n.web_word(f"line.{e.line}") or e.line.replace("_", " ")
        return _web("event.side_paid", "", seat=e.seat, name=name, line=line,
                    paid=money(e.payout, cur))
    if kind == "round_voided":
        return _web("event.voided", "") + _closed(e.fair)
    if kind == "round_finished":
        return _finished(e, cur)
    return None
