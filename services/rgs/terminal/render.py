"""Drawing a round on a terminal: pure functions from the public round view to text.

The client never needs the rules to draw the table: everything comes from the view, including
the decisions open now with their costs and offers.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.locales import amounts
from rgs.locales.names import ACTION_NAMES
from rgs.terminal import i18n

#: The width ``rgs play`` writes to (a terminal's classic 80 columns).
WIDTH = 80
#: Hex digits of a hash shown in the table's lines (the ``f`` command shows the whole).
HASH_SHOWN = 8
_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: Keys a player types for each decision.
ACTION_KEYS: dict[int, str] = {
    bj.ACTION_HIT: "h", bj.ACTION_STAND: "s", bj.ACTION_DOUBLE: "d",
    bj.ACTION_POWER_DOUBLE: "d", bj.ACTION_SPLIT: "p", bj.ACTION_POWER_SPLIT: "w",
    bj.ACTION_SURRENDER: "r", bj.ACTION_CASH_OUT: "c", bj.ACTION_POWER_KEEP: "k",
    bj.ACTION_POWER_REPLACE: "x", bj.ACTION_INSURE: "i", bj.ACTION_DECLINE_INSURANCE: "n",
}


def money(amount: int, currency: str) -> str:
    """``12345, "EUR"`` → ``"123.45 EUR"`` in English, ``"123,45 €"`` in German (the active
    language's way, :mod:`rgs.terminal.i18n`; exact: integer arithmetic only)."""
    return amounts.money(amount, currency, language=i18n.active())


def _word(prefix: str, enum: Any, value: int, strip: str) -> str | None:
    """The active language's word for an enum value (``action.HIT``), None when unknown."""
    found = enum.DESCRIPTOR.values_by_number.get(value)
    return i18n.catalogue_word(f"{prefix}.{found.name.removeprefix(strip)}") if found else None


def action_name(action: int) -> str:
    """A decision's name in the active language."""
    return _word("action", bj.Action, action, "ACTION_") or ACTION_NAMES.get(action, "")


def side_name(kind: int) -> str:
    """A side bet's name in the active language."""
    return (_word("sidebet", bj.SideBetKind, kind, "SIDE_BET_KIND_")
            or i18n.say("side_bet_generic"))


def outcome_word(outcome: int) -> str:
    """A hand's outcome in the active language."""
    return _word("outcome", bj.Outcome, outcome, "OUTCOME_") or ""


def parse_money(text: str, currency: str) -> int:
    """``"1.50"`` → 150 minor units; raises ValueError with a readable message."""
    exp = amounts.exponent(currency)
    t = i18n.normalise_amount(text)
    if not t or t.count(".") > 1 or not t.replace(".", "").isdigit():
        raise ValueError(i18n.say("not_amount", text=repr(text),
                                  example=i18n.format_amount(100, "", 2, with_currency=False)))
    whole, _, frac = t.partition(".")
    if len(frac) > exp:
        raise ValueError(i18n.say("decimals", currency=currency, n=exp))
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
    return i18n.say("soft", n=value) if soft else str(value)


def table(view: bj.RoundView, *, ascii_only: bool = False) -> str:
    """The whole table: dealer, every box and hand, side bets, totals and balance."""
    cur = view.currency
    lines = [i18n.say("round", id=view.round_id, variant=view.variant_id),
             *round_lines(view, ascii_only)]
    lines.append("  " + i18n.say("totals", staked=money(view.total_staked, cur),
                                 paid=money(view.total_paid, cur),
                                 balance=money(view.balance, cur))
                 + (i18n.say("pending") if view.payment_pending else ""))
    if view.HasField("session"):
        lines.append("  " + position(view.session, cur))
    lines = [fit(line) for line in lines]
    lines.extend(fairness(view.fair))
    return "\n".join(lines)


def fit(line: str, width: int = WIDTH) -> str:
    """A table line as it is, or wrapped at ``width`` columns (words never split; the rest
    indented under it); each line of a text of several."""
    if "\n" in line:
        return "\n".join(fit(part, width) for part in line.split("\n"))
    if len(line) <= width:
        return line
    return textwrap.fill(line, width=width, subsequent_indent="        ",
                         break_long_words=False, break_on_hyphens=False)


def elapsed(seconds: int) -> str:
    """``5430`` → ``"1:30:30"``."""
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def position(p: bj.SessionPosition, currency: str) -> str:
    """A session's time and net position in one line (brands whose jurisdiction requires it).

    >>> position(bj.SessionPosition(elapsed_s=95, total_staked=1500, total_paid=2000,
    ...                             net_position=500), "GBP")
    'Session 0:01:35 · staked 15.00 GBP · paid 20.00 GBP · net +5.00 GBP'
    """
    net = p.net_position
    sign = "+" if net > 0 else "-" if net < 0 else ""
    return i18n.say("position", elapsed=elapsed(p.elapsed_s),
                    staked=money(p.total_staked, currency), paid=money(p.total_paid, currency),
                    net=f"{sign}{money(abs(net), currency)}")


def verdict(view: bj.RoundView) -> str:
    """A settled round's result in words, by the server's class of it: only a win above the
    stake is called a win (a push or a return is not).

    >>> verdict(bj.RoundView(result=bj.RESULT_CLASS_RETURN_EQUAL, total_staked=1000,
    ...                      total_paid=1000, currency="EUR"))
    'Push: your stake is back.'
    """
    net, cur = view.total_paid - view.total_staked, view.currency
    won = (view.result == bj.RESULT_CLASS_WIN if view.result != bj.RESULT_CLASS_UNSPECIFIED
           else net > 0)  # a voided round has no class
    key = "won" if won else "lost" if net < 0 else "even"  # even: a push, the stake back
    return i18n.say(key, amount=money(abs(net), cur))


def round_lines(view: bj.RoundView, ascii_only: bool = False) -> list[str]:
    """The dealer and every box and hand of a round (solo or shared table)."""
    cur = view.currency
    lines = []
    dealer = cards(list(view.dealer_cards), ascii_only=ascii_only,
                   hidden=view.dealer_hole_hidden)
    lines.append(f"  {i18n.say('dealer')}: {dealer}   "
                 f"({total(view.dealer_total, view.dealer_soft)})")
    to_act = (view.to_act.seat, view.to_act.hand) if view.HasField("to_act") else None
    for box in view.boxes:
        for hand in box.hands:
            mark = "▶" if (box.seat, hand.index) == to_act else " "
            label = (i18n.say("seat_hand", n=box.seat, h=hand.index + 1) if len(box.hands) > 1
                     else i18n.say("seat", n=box.seat))
            status = outcome_word(hand.outcome) if hand.outcome else ""
            paid = f" → {money(hand.payout, cur)}" if hand.outcome else ""
            lines.append(f" {mark}{label}: {cards(list(hand.cards), ascii_only=ascii_only)}  "
                         f"({total(hand.total, hand.soft)})  "
                         f"{i18n.say('stake', amount=money(hand.stake, cur))}"
                         f"{i18n.say('doubled') if hand.doubled else ''}"
                         f"{'  ' + status if status else ''}{paid}")
        for side in box.side_bets:
            name = side_name(side.kind)
            line = i18n.web_word(f"line.{side.line}") or side.line.replace("_", " ")
            result = (f"{line} → {money(side.payout, cur)}" if side.settled
                      else i18n.say("open"))
            lines.append(f"    {name} {money(side.stake, cur)}: {result}")
        if box.insurance_stake:
            lines.append("    " + i18n.say("insurance", stake=money(box.insurance_stake, cur),
                                                  paid=money(box.insurance_payout, cur)))
    return lines


def wrap(text: str, indent: str = "  ", width: int = WIDTH) -> str:
    """``text`` wrapped at ``width`` columns, every line starting with ``indent``; words (and
    so hashes) are never split, and lines already in ``text`` are kept."""
    out = []
    for para in text.split("\n"):
        out.append(textwrap.fill(para, width=width, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False) or indent.rstrip())
    return "\n".join(out)


def short_hash(value: str) -> str:
    """A hash's first digits and an ellipsis (``9f86d081…``); short values as they are."""
    return value if len(value) <= HASH_SHOWN + 1 else value[:HASH_SHOWN] + "…"


def fairness(fair: bj.Fairness) -> list[str]:
    """The provably fair lines, at most two at 80 columns: the commitment while the round is
    open; the seed, its commitment and the next round's after it (hashes shortened: ``f`` at
    the stake prompt shows them whole, :func:`fairness_full`)."""
    if not fair.verifiable:
        return []
    if not fair.server_seed:
        return wrap(i18n.say("fair_open", commitment=short_hash(fair.commitment),
                             n=fair.round_number)).split("\n")
    lines = [wrap(i18n.say("fair_settled", seed=short_hash(fair.server_seed),
                           commitment=short_hash(fair.commitment), n=fair.round_number))]
    lines.append(wrap(i18n.say("fair_next", commitment=short_hash(fair.next_commitment))
                      if fair.next_commitment else i18n.say("fair_more")))
    return "\n".join(lines).split("\n")


def fairness_full(round_id: str, fair: bj.Fairness | tb.TableFairness | None) -> str:
    """A round's provably fair values whole, each hash on its own line, and how a player
    checks them (the seed by its SHA-256; the whole round from the operator's recall)."""
    if fair is None or not fair.verifiable:
        return wrap(i18n.say("fair_none"), indent="")
    lines = [wrap(i18n.say("fair_title", id=round_id), indent="")]
    for key, value in (("fair_seed", fair.server_seed), ("fair_commitment", fair.commitment),
                       ("fair_next_full", fair.next_commitment)):
        if value:
            lines += ["  " + i18n.say(key), "    " + value]
    lines.append(wrap(i18n.say("fair_inputs", seed=repr(fair.client_seed),
                               n=fair.round_number, decks=fair.decks)))
    if fair.server_seed:
        lines += [wrap(i18n.say("fair_check"), indent=""),
                  "    printf '%s' SEED | xxd -r -p | sha256sum"]
    lines.append(wrap(i18n.say("fair_recall"), indent=""))
    return "\n".join(lines)


def best_mark(ascii_only: bool = False) -> str:
    """The mark of the best decision: a star, or ``*`` on an ASCII-only terminal."""
    return "*" if ascii_only else "★"


def hints_legend(ascii_only: bool = False) -> str:
    """Said once, the first time a brand's hints show: what the ``EV`` figures mean (wrapped
    at 80 columns)."""
    return wrap(i18n.say("hints_legend", best=best_mark(ascii_only)), indent="")


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
            extra += (i18n.say("fair_value", amount=money(a.fair_value, currency)) + ")"
                      if a.fair_value else ")")
        if a.HasField("expected_value"):
            extra += f" EV {a.expected_value:+.3f}" + (f" {best_mark(ascii_only)}" if a.best
                                                       else "")
        parts.append(f"[{ACTION_KEYS[a.action]}] {action_name(a.action)}{extra}")
    lines = [""]
    for part in parts:  # a line break between two decisions, never inside one
        if lines[-1] and len(lines[-1]) + 2 + len(part) > WIDTH - 4:  # room for "  > "
            lines.append("")
        lines[-1] += ("  " if lines[-1] else "") + part
    return "\n".join(lines)

