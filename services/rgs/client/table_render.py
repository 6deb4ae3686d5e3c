"""Drawing a shared table on a terminal: pure functions from the table's typed snapshot and
events (``rgs.table.v1``) to text. Whose seat is the player's own comes from the server
(``TablePlayer.you``); nothing here compares ids."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.client import i18n, render
from rgs.client.render import (
    ACTION_NAMES,
    SIDE_NAMES,
    card,
    fit,
    money,
    position,
    round_lines,
    short_hash,
    wrap,
)
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb

PHASES = {tb.TABLE_PHASE_IDLE: "waiting for the first bet",
          tb.TABLE_PHASE_BETTING: "betting open", tb.TABLE_PHASE_INSURANCE: "insurance",
          tb.TABLE_PHASE_PLAYING: "playing"}
_PRESETS = {tb.BEHIND_INSURANCE_UNSPECIFIED: "never", tb.BEHIND_INSURANCE_NEVER: "never",
            tb.BEHIND_INSURANCE_ALWAYS: "always", tb.BEHIND_INSURANCE_ASK: "ask"}
_OUTCOMES = {bj.OUTCOME_BLACKJACK: "blackjack", bj.OUTCOME_WIN: "won",
             bj.OUTCOME_PUSH: "pushed", bj.OUTCOME_LOSE: "lost", bj.OUTCOME_BUST: "bust",
             bj.OUTCOME_SURRENDER: "surrendered", bj.OUTCOME_CASHED_OUT: "cashed out",
             bj.OUTCOME_CHARLIE: "won with a Charlie", bj.OUTCOME_VOID: "void"}


#: Why a seat was given back, said to others (False) and to its player (True).
_RELEASES = {
    tb.SEAT_RELEASE_SAT_OUT: {False: "its player sat out too many rounds in a row",
                              True: "you sat out too many rounds in a row"},
    tb.SEAT_RELEASE_AWAY: {False: "its player was away from the table",
                           True: "you were away from the table"},
    tb.SEAT_RELEASE_SESSION_EXPIRED: {False: "its player's session ended",
                                      True: "your session ended"},
}


def name(p: tb.TablePlayer) -> str:
    """A player as the table shows them, the caller as "you"."""
    return "you" if p.you else p.display_name


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
    left = seconds_left(snap.deadline if snap.HasField("deadline") else None, now)
    head = (f"Table {snap.table_id}  round {snap.round_no}  "
            f"{PHASES.get(snap.phase, 'waiting')}")
    if left is not None and snap.phase != tb.TABLE_PHASE_IDLE:
        head += f"  ({left} s left)"
    if balance is not None:
        head += f"  |  your balance {money(balance, cur)}"
    lines = [head]
    taken = {s.seat: s for s in snap.seats}
    bets = {b.seat: b for b in snap.bets}
    view = snap.round if snap.HasField("round") else None
    to_act = view.to_act.seat if view is not None and view.HasField("to_act") else None
    for n in range(1, seats + 1):
        s = taken.get(n)
        mark = "▶" if n == to_act else " "
        if s is None:
            lines.append(f" {mark}Seat {n}: (free)")
            continue
        who = f"{s.player.display_name}{' (you)' if s.player.you else ''}"
        hot = "  " + i18n.say("hot", n=s.hot) if s.hot else ""
        note = "  (leaves after this round)" if s.leaving else (
            f"  (sat out {s.sat_out})" if s.sat_out and s.player.you else "")
        line = f" {mark}Seat {n}: {who}{hot}{note}"
        b = bets.get(n)
        if b is not None:
            line += f"  bet {money(b.stake, cur)}"
            for amount, label in ((b.perfect_pairs, "PP"), (b.twenty_one_plus_three, "21+3"),
                                  (b.twenty_plus, "20+")):
                if amount:
                    line += f" + {label} {money(amount, cur)}"
            if b.deal_now:
                line += "  [Deal Now]"
        lines.append(line)
        for bb in snap.behind:
            if bb.seat == n:
                presets = [p for p, on in (("follows doubles", bb.follow_double),
                                           ("follows splits", bb.follow_split)) if on]
                presets.append(f"insurance {_PRESETS[bb.insurance]}")
                you = " (you)" if bb.player.you else ""
                lines.append(f"      behind: {bb.player.display_name}{you} "
                             f"{money(bb.stake, cur)} ({', '.join(presets)})")
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
        return "\n    forced cards (test mode): this round does not verify"
    if f.server_seed:
        return (f"\n    {i18n.say('tfair_closed')}\n      {f.server_seed}\n"
                + wrap(i18n.say("tfair_check"), indent="    "))
    return f"\n    client seed {f.client_seed or '(none)'}"


def _hand(seat: int, hand: int) -> str:
    return f"Seat {seat}" if hand == 0 else f"Seat {seat} hand {hand + 1}"


def table_event(ev: tb.TableEvent, currency: str, *,
                ascii_only: bool = False) -> str | None:
    """One line, as a player would say it, for an event a player should notice (None for
    the others)."""
    line = _event_line(ev, currency, ascii_only)
    return line[:1].upper() + line[1:] if line else None


def _event_line(ev: tb.TableEvent, currency: str, ascii_only: bool) -> str | None:
    cur = currency
    kind = ev.WhichOneof("event")
    if kind is None:
        return None
    e = getattr(ev, kind)
    if kind == "card_dealt":
        if e.face_down:
            return "The dealer's hole card, face down"
        got = card(e.card, ascii_only=ascii_only)
        return f"The dealer gets {got}" if not e.HasField("seat") else \
            f"{_hand(e.seat, e.hand)} gets {got}"
    if kind == "seat_taken":
        return f"{name(e.player)} {'take' if e.player.you else 'takes'} seat {e.seat}"
    if kind == "seat_left":
        release = _RELEASES.get(e.reason)
        if release is None:
            return f"{name(e.player)} {'leave' if e.player.you else 'leaves'} seat {e.seat}"
        whose = "your" if e.player.you else f"{e.player.display_name}'s"
        return f"{whose} seat {e.seat} is given back: {release[e.player.you]}"
    if kind == "betting_opened":
        return "Betting is open" + _opened(e.fair)
    if kind == "bet_placed":
        sides = [f"{label} {money(a, cur)}" for a, label in (
            (e.perfect_pairs, "Perfect Pairs"), (e.twenty_one_plus_three, "21+3"),
            (e.twenty_plus, "20+")) if a]
        extra = f" (+ {', '.join(sides)})" if sides else ""
        return f"{name(e.player)} {'bet' if e.player.you else 'bets'} " \
               f"{money(e.stake, cur)} on seat {e.seat}{extra}"
    if kind == "behind_placed":
        return f"{name(e.player)} {'bet' if e.player.you else 'bets'} " \
               f"{money(e.stake, cur)} behind seat {e.seat}"
    if kind == "deal_now":
        return f"{name(e.player)} (seat {e.seat}) {'are' if e.player.you else 'is'} ready"
    if kind == "betting_closed":
        return "Betting closed" + _closed(e.fair)
    if kind == "behind_refunded":
        whose = "Your" if e.player.you else f"{e.player.display_name}'s"
        cause = "the seat was given back" if e.reason == "seat_released" else \
            "the seat sat the round out"
        return f"{whose} Bet Behind on seat {e.seat} is returned ({money(e.amount, cur)}): " \
               f"{cause}"
    if kind == "player_acted":
        what = ACTION_NAMES.get(e.action, "acted")
        cost = f" (+{money(e.stake_added, cur)})" if e.stake_added else ""
        return f"{_hand(e.seat, e.hand)}: {what}{cost}"
    if kind == "behind_stake_added":
        return f"{name(e.player)} {'follow' if e.player.you else 'follows'} behind seat " \
               f"{e.seat}: +{money(e.amount, cur)}"
    if kind == "behind_follow_skipped":
        return f"{name(e.player)} behind seat {e.seat} did not follow (not funded)"
    if kind == "decision_due":
        return f"Seat {e.seat} to act"
    if kind == "decision_timed_out":
        return f"Seat {e.seat} ran out of time: {ACTION_NAMES.get(e.action, 'stand')}"
    if kind == "insurance_decided":
        took = ("take" if e.player.you else "takes") if e.take else \
            ("decline" if e.player.you else "declines")
        whose = " for the Bet Behind" if e.behind else ""
        return f"{name(e.player)} {took} insurance on seat {e.seat}{whose}"
    if kind == "hole_card_revealed":
        return f"The dealer turns over {card(e.card, ascii_only=ascii_only)}"
    if kind == "hand_settled":
        return f"{_hand(e.seat, e.hand)} {_OUTCOMES.get(e.outcome, 'settled')}: paid " \
               f"{money(e.payout, cur)}"
    if kind == "side_bet_settled":
        label = SIDE_NAMES.get(e.kind, "side bet")
        hit = f"{e.line.replace('_', ' ')}, paid {money(e.payout, cur)}" \
            if e.payout else "lost"
        return f"Seat {e.seat} {label}: {hit}"
    if kind == "round_voided":
        return "Round voided: every stake returned" + _closed(e.fair)
    if kind == "round_finished":
        parts = [f"{name(r.player)} staked {money(r.staked, cur)}, paid {money(r.paid, cur)}"
                 for r in e.results]
        mine = [r for r in e.results if r.player.you]
        net = ""
        if mine:
            n = mine[0].paid - mine[0].staked
            net = f"\n    your net for the round: {'+' if n > 0 else ''}{money(n, cur)}"
        return "Round over: " + ("; ".join(parts) or "no bets") + net + _closed(e.fair)
    return None
