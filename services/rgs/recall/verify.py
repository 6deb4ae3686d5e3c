"""``rgs verify``: a recall document's rounds, each checked for its seeds (:mod:`rgs.rng.verify`)
and whole (:mod:`rgs.recall.check`).

The document is what the operator's recall prints, as JSON: the answer of ``GetPlayerRound``
(``{"round": {...}}``), one ``RoundRecord``, a ``ListPlayerRounds`` page (``{"rounds": [...]}``,
every round checked), or a shared table round's ``GetTableRound`` answer. A round verifies when
its seeds check out (the commitment, the order of its dealt cards) and it is, whole, the round
its recorded bets and decisions make by the rules on its seeds' order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rgs.recall.check import check_record
from rgs.rng.verify import RecallFormatError, check_seeds, get

__all__ = ["RecallFormatError", "RoundVerdict", "rounds_of", "verify_document",
           "verify_record"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVerdict:
    """The outcome for one round."""

    round_id: str
    fair: bool
    lines: tuple[str, ...]


def rounds_of(doc: object) -> list[Mapping[str, Any]]:
    """The round records in a recall document."""
    if not isinstance(doc, Mapping):
        raise RecallFormatError("expected a JSON object (a GetPlayerRound answer, a RoundRecord "
                                "or a ListPlayerRounds page)")
    if isinstance(doc.get("round"), Mapping):
        return [doc["round"]]
    if isinstance(doc.get("rounds"), list):
        rows = [r for r in doc["rounds"] if isinstance(r, Mapping)]
        if not rows:
            raise RecallFormatError("the page holds no rounds")
        return rows
    if "steps" in doc or get(doc, "round_id") is not None:
        return [doc]
    raise RecallFormatError("no round found: expected a `round`, `rounds` or a RoundRecord "
                            "with `round_id` and `steps`")


def verify_record(record: Mapping[str, Any]) -> RoundVerdict:
    """Verify one round record: its seeds, then the round whole. Raises RecallFormatError on a
    record that is not a round's recall."""
    round_id = str(get(record, "round_id", "?"))
    seeds = check_seeds(record)
    if seeds.inputs is None:
        return RoundVerdict(round_id=round_id, fair=False, lines=seeds.lines)
    f = seeds.inputs
    whole = check_record(record, server_seed=f.server_seed, client_seed=f.client_seed,
                         round_number=f.round_number, decks=f.decks)
    return RoundVerdict(round_id=round_id, fair=seeds.ok and whole.ok,
                        lines=(*seeds.lines, *whole.lines))


def verify_document(doc: object) -> list[RoundVerdict]:
    """Verify every round of a recall document."""
    return [verify_record(r) for r in rounds_of(doc)]
