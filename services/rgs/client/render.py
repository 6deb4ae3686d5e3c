"""Drawing a round on a terminal: pure functions from the public round view to text.

The client never needs the rules to draw the table: everything comes from the view, including
the decisions open now with their costs and offers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj

#: ISO 4217 minor-unit exponents that are not 2.
_EXPONENTS = {"JPY": 0, "KRW": 0, "CLP": 0, "ISK": 0, "VND": 0, "BHD": 3, "KWD": 3, "OMR": 3,
              "JOD": 3, "TND": 3}
_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: Keys a player types for each decision.
ACTION_KEYS: dict[int, str] = {
    bj.ACTION_HIT: "h", bj.ACTION_STAND: "s", bj.ACTION_DOUBLE: "d",
    bj.ACTION_POWER_DOUBLE: "d", bj.ACTION_SPLIT: "p", bj.ACTION_POWER_SPLIT: "w",
    bj.ACTION_SURRENDER: "r", bj.ACTION_CASH_OUT: "c", bj.ACTION_POWER_KEEP: "k",
    bj.ACTION_POWER_REPLACE: "x", bj.ACTION_INSURE: "i", bj.ACTION_DECLINE_INSURANCE: "n",
}
ACTION_NAMES: dict[int, str] = {
    bj.ACTION_HIT: "hit", bj.ACTION_STAND: "stand", bj.ACTION_DOUBLE: "double",
    bj.ACTION_POWER_DOUBLE: "power double", bj.ACTION_SPLIT: "split",
    bj.ACTION_POWER_SPLIT: "power split", bj.ACTION_SURRENDER: "surrender",
    bj.ACTION_CASH_OUT: "cash out", bj.ACTION_POWER_KEEP: "keep the card",
    bj.ACTION_POWER_REPLACE: "replace the card", bj.ACTION_INSURE: "insure",
    bj.ACTION_DECLINE_INSURANCE: "no insurance",
}
_OUTCOMES = {
    bj.OUTCOME_BLACKJACK: "BLACKJACK", bj.OUTCOME_WIN: "win", bj.OUTCOME_PUSH: "push",
    bj.OUTCOME_LOSE: "lose", bj.OUTCOME_BUST: "bust", bj.OUTCOME_SURRENDER: "surrendered",
    bj.OUTCOME_CASHED_OUT: "cashed out", bj.OUTCOME_CHARLIE: "card Charlie wins",
    bj.OUTCOME_VOID: "void (stake returned)",
}
SIDE_NAMES = {
    bj.SIDE_BET_KIND_TWENTY_PLUS: "20+ Bonus", bj.SIDE_BET_KIND_PERFECT_PAIRS: "Perfect Pairs",
    bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE: "21+3",
}


def exponent(currency: str) -> int:
    """Minor-unit exponent of an ISO 4217 currency (2 unless listed)."""
    return int(_EXPONENTS.get(currency.upper(), 2))


def money(amount: int, currency: str) -> str:
    """``12345, "EUR"`` → ``"123.45 EUR"`` (exact: integer arithmetic only)."""
    exp = exponent(currency)
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), 10**exp)
    text = f"{whole:,}" + (f".{frac:0{exp}d}" if exp else "")
    return f"{sign}{text} {currency}".strip()


def parse_money(text: str, currency: str) -> int:
    """``"1.50"`` → 150 minor units; raises ValueError with a readable message."""
    exp = exponent(currency)
    t = text.strip().replace(",", "")
    if not t or t.count(".") > 1 or not t.replace(".", "").isdigit():
        raise ValueError(f"{text!r} is not an amount (e.g. 1.00)")
    whole, _, frac = t.partition(".")
    if len(frac) > exp:
        raise ValueError(f"{currency} has {exp} decimals")
    scale: int = 10**exp
    return int(whole or "0") * scale + int((frac or "0").ljust(exp, "0") or "0")


def card(code: str, *, ascii_only: bool = False) -> str:
    """A card code for a person: ``TH`` → ``10♥``."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + (code[1] if ascii_only else _SUITS.get(code[1], code[1]))


def cards(codes: list[str] | tuple[str, ...], *, ascii_only: bool = False,
          hidden: bool = False) -> str:
    """Several cards, with a face-down card shown as ``[?]``."""
    out = [card(c, ascii_only=ascii_only) for c in codes]
    if hidden:
        out.append("[?]")
    return " ".join(out)


def total(value: int, soft: bool) -> str:
    """``17, True`` → ``"soft 17"``."""
    return f"soft {value}" if soft else str(value)


def table(view: bj.RoundView, *, ascii_only: bool = False) -> str:
    """The whole table: dealer, every box and hand, side bets, totals and balance."""
    cur = view.currency
    lines = [f"Round {view.round_id}  ({view.variant_id})", *round_lines(view, ascii_only)]
    lines.append(f"  Staked {money(view.total_staked, cur)}, paid {money(view.total_paid, cur)}"
                 f"   Balance {money(view.balance, cur)}"
                 + ("   (win being paid…)" if view.payment_pending else ""))
    lines.extend(fairness(view.fair))
    return "\n".join(lines)


def round_lines(view: bj.RoundView, ascii_only: bool = False) -> list[str]:
    """The dealer and every box and hand of a round (solo or shared table)."""
    cur = view.currency
    lines = []
    dealer = cards(list(view.dealer_cards), ascii_only=ascii_only,
                   hidden=view.dealer_hole_hidden)
    lines.append(f"  Dealer: {dealer}   ({total(view.dealer_total, view.dealer_soft)})")
    to_act = (view.to_act.seat, view.to_act.hand) if view.HasField("to_act") else None
    for box in view.boxes:
        for hand in box.hands:
            mark = "▶" if (box.seat, hand.index) == to_act else " "
            label = f"Seat {box.seat}" + (f" hand {hand.index + 1}" if len(box.hands) > 1 else "")
            status = _OUTCOMES.get(hand.outcome, "") if hand.outcome else ""
            paid = f" → {money(hand.payout, cur)}" if hand.outcome else ""
            lines.append(f" {mark}{label}: {cards(list(hand.cards), ascii_only=ascii_only)}  "
                         f"({total(hand.total, hand.soft)})  stake {money(hand.stake, cur)}"
                         f"{' doubled' if hand.doubled else ''}"
                         f"{'  ' + status if status else ''}{paid}")
        for side in box.side_bets:
            name = SIDE_NAMES.get(side.kind, "side bet")
            result = (f"{side.line.replace('_', ' ')} → {money(side.payout, cur)}"
                      if side.settled else "open")
            lines.append(f"    {name} {money(side.stake, cur)}: {result}")
        if box.insurance_stake:
            lines.append(f"    insurance {money(box.insurance_stake, cur)} → "
                         f"{money(box.insurance_payout, cur)}")
    return lines


def fairness(fair: bj.Fairness) -> list[str]:
    """The provably fair lines: the commitment while the round is open, the seed after it."""
    if not fair.verifiable:
        return []
    client = f"client seed {fair.client_seed!r}, round {fair.round_number}"
    if not fair.server_seed:
        return [f"  Fair: commitment {fair.commitment} ({client}); the seed is shown when the "
                "round ends"]
    return [f"  Fair: server seed {fair.server_seed}",
            f"        SHA-256 = {fair.commitment} ({client}); check: rgs verify <recall.json>",
            f"  Next round's commitment: {fair.next_commitment}"]


def best_mark(ascii_only: bool = False) -> str:
    """The mark of the best decision: a star, or ``*`` on an ASCII-only terminal."""
    return "*" if ascii_only else "★"


def hints_legend(ascii_only: bool = False) -> str:
    """Said once, the first time a brand's hints show: what the ``EV`` figures mean."""
    return ("EV: what a decision returns on average, in main bets (EV +0.250 wins a quarter "
            "of a bet, EV -1.000 loses it), playing on as well as possible; "
            f"{best_mark(ascii_only)} marks the best. A split hand's EV is that hand's own; "
            "insurance's and keep/replace's count the whole hand.")


def choices(allowed: list[bj.AllowedAction], currency: str, *, ascii_only: bool = False) -> str:
    """The open decisions as ``[h] hit  [d] double (1.00 EUR)  …``; with the brand's hints on,
    each with its expected value in main bets (``EV -0.157``) and the best marked ``★``
    (``*`` with ``ascii_only``)."""
    parts = []
    for a in allowed:
        extra = ""
        if a.cost:
            extra = f" ({money(a.cost, currency)})"
        elif a.offer:
            extra = f" ({money(a.offer, currency)}"
            extra += f", fair value {money(a.fair_value, currency)})" if a.fair_value else ")"
        if a.HasField("expected_value"):
            extra += f" EV {a.expected_value:+.3f}" + (f" {best_mark(ascii_only)}" if a.best
                                                       else "")
        parts.append(f"[{ACTION_KEYS[a.action]}] {ACTION_NAMES[a.action]}{extra}")
    return "  ".join(parts)


# --------------------------------------------------------------------------- shared tables

_PHASES = {"idle": "waiting for the first bet", "betting": "betting open",
           "insurance": "insurance", "playing": "playing"}


def seconds_left(deadline: str | None, now: datetime) -> int | None:
    """Whole seconds until an ISO 8601 ``deadline`` (None without one; never negative)."""
    if not deadline:
        return None
    left = (datetime.fromisoformat(deadline) - now).total_seconds()
    return max(0, int(left + 0.999))


def shared_table(state: dict[str, Any], *, me: str, seats: int, currency: str,
                 view: bj.RoundView | None, now: datetime, ascii_only: bool = False) -> str:
    """A shared table from its snapshot: every seat with its player, Hot Players count, bets,
    Bet Behinds and Deal Now; the round's dealer and hands; whose turn and the time left."""
    cur = currency
    phase = str(state.get("phase", "idle"))
    left = seconds_left(state.get("deadline"), now)
    head = f"Table {state.get('table_id', '')}  round {state.get('round_no', 0)}  " \
           f"{_PHASES.get(phase, phase)}"
    if left is not None and phase != "idle":
        head += f"  ({left} s left)"
    lines = [head]
    taken = {int(s["seat"]): s for s in state.get("seats", [])}
    bets = {int(b["seat"]): b for b in state.get("bets", [])}
    to_act = view.to_act.seat if view is not None and view.HasField("to_act") else None
    for n in range(1, seats + 1):
        s = taken.get(n)
        mark = "▶" if n == to_act else " "
        if s is None:
            lines.append(f" {mark}Seat {n}: (free)")
            continue
        who = str(s["player_id"]) + (" (you)" if s["player_id"] == me else "")
        hot = f"  hot {s['hot']}" if s.get("hot") else ""
        line = f" {mark}Seat {n}: {who}{hot}"
        b = bets.get(n)
        if b is not None:
            line += f"  bet {money(int(b['stake']), cur)}"
            for field, name in (("perfect_pairs", "PP"), ("twenty_one_plus_three", "21+3"),
                                ("twenty_plus", "20+")):
                if b.get(field):
                    line += f" + {name} {money(int(b[field]), cur)}"
            if b.get("deal_now"):
                line += "  [Deal Now]"
        lines.append(line)
        for bb in state.get("behind", []):
            if int(bb["seat"]) == n:
                presets = [p for p, on in (("follows doubles", bb.get("follow_double")),
                                           ("follows splits", bb.get("follow_split"))) if on]
                presets.append(f"insurance {bb.get('insurance', 'never')}")
                lines.append(f"      behind: {bb['player_id']}"
                             f"{' (you)' if bb['player_id'] == me else ''} "
                             f"{money(int(bb['stake']), cur)} ({', '.join(presets)})")
    if view is not None:
        lines.extend(round_lines(view, ascii_only))
    lines.extend(table_fairness(state))
    return "\n".join(lines)


def table_event(kind: str, data: dict[str, Any], currency: str, *,
                ascii_only: bool = False) -> str | None:
    """One line for a table event a player should notice (None for the others)."""
    cur = currency
    if kind == "card_dealt":
        if data.get("face_down"):
            return "Dealer: hole card, face down"
        got = card(str(data.get("card", "??")), ascii_only=ascii_only)
        if data.get("seat") is None:
            return f"Dealer gets {got}"
        return f"Seat {data['seat']} hand {int(data.get('hand', 0)) + 1} gets {got}"
    who = data.get("player_id", "")
    seat = data.get("seat")
    if kind == "seat_taken":
        return f"{who} sits at seat {seat}"
    if kind == "seat_left":
        return f"{who} leaves seat {seat}"
    if kind == "betting_opened":
        return "Betting is open" + _fair_opened(data.get("fair"))
    if kind == "bet_placed":
        return f"{who} bets {money(int(data.get('stake', 0)), cur)} on seat {seat}"
    if kind == "behind_placed":
        return f"{who} bets {money(int(data.get('stake', 0)), cur)} behind seat {seat}"
    if kind == "deal_now":
        return f"{who} (seat {seat}) pressed Deal Now"
    if kind == "betting_closed":
        return "Betting closed" + _fair_closed(data.get("fair"))
    if kind == "behind_refunded":
        return f"{who}'s Bet Behind on seat {seat} refunded: " \
               f"{money(int(data.get('amount', 0)), cur)}"
    if kind == "player_acted":
        action = str(data.get("action", "")).replace("_", " ")
        return f"Seat {seat} hand {int(data.get('hand', 0)) + 1}: {action}"
    if kind == "behind_stake_added":
        return f"A Bet Behind on seat {seat} follows: +{money(int(data.get('amount', 0)), cur)}"
    if kind == "decision_due":
        return f"Seat {seat} to act"
    if kind == "decision_timed_out":
        return f"Seat {seat} ran out of time: {data.get('action', 'stand')}"
    if kind == "insurance_decided":
        return f"{who} {'takes' if data.get('take') else 'declines'} insurance on seat {seat}"
    if kind == "hole_card_revealed":
        return f"Dealer turns over {card(str(data.get('card', '??')), ascii_only=ascii_only)}"
    if kind == "hand_settled":
        outcome = str(data.get("outcome", "")).replace("_", " ")
        return f"Seat {seat} hand {int(data.get('hand', 0)) + 1}: {outcome} → " \
               f"{money(int(data.get('payout', 0)), cur)}"
    if kind == "round_voided":
        return "Round voided: every stake returned" + _fair_closed(data.get("fair"))
    if kind == "round_finished":
        parts = [f"{r['player_id']} staked {money(int(r['staked']), cur)} paid "
                 f"{money(int(r['paid']), cur)}" for r in data.get("results", [])]
        return "Round over: " + ("; ".join(parts) or "no bets") + \
            _fair_closed(data.get("fair"))
    return None


def _fair_opened(fair: object) -> str:
    """The commitment shown when betting opens (provably fair rounds)."""
    if not isinstance(fair, dict) or not fair.get("commitment"):
        return ""
    return f"\n    provably fair round {fair.get('round_number')}: commitment " \
           f"SHA-256(server seed) = {fair['commitment']}"


def _fair_closed(fair: object) -> str:
    """The client seed fixed at betting close, and the server seed once revealed."""
    if not isinstance(fair, dict) or not fair.get("commitment"):
        return ""
    if not fair.get("verifiable", True):
        return "\n    forced cards (test mode): this round does not verify"
    if fair.get("server_seed"):
        return f"\n    server seed {fair['server_seed']} (its SHA-256 is the commitment " \
               f"{fair['commitment']}); check it with rgs verify on the round's recall"
    return f"\n    client seed {fair.get('client_seed') or '(none)'}"


def table_fairness(state: dict[str, Any]) -> list[str]:
    """A table snapshot's provably fair lines: the round's commitment while it is open, the
    last round's revealed seed, the next round's commitment."""
    lines = []
    fair = state.get("fair")
    if isinstance(fair, dict) and fair.get("commitment"):
        lines.append(f"  Fair round {fair.get('round_number')}: commitment {fair['commitment']}"
                     + (f", client seed {fair['client_seed']}" if fair.get("client_seed")
                        else ""))
    elif state.get("next_commitment"):
        lines.append(f"  Next round's commitment: {state['next_commitment']}")
    last = state.get("last_round")
    if isinstance(last, dict) and isinstance(last.get("fair"), dict) \
            and last["fair"].get("server_seed"):
        lines.append(f"  Last round {last.get('round_id', '')}: server seed "
                     f"{last['fair']['server_seed']}")
    return lines
