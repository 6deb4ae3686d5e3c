"""The TypeScript verifier of @rgs/client (web/client/dist, as studios install it) agrees with the
RGS: it recomputes rgs.rng.fair.card_order on random seeds, client seeds, round numbers and
shoes, reproduces the known answer docs/rng.md prints, judges dealt cards as check_round does,
and from a round's view finds the very cards the engine dealt (splits, several boxes, Power
Replace's burned card), or the card that differs when the view was changed. Run in Node
(``bash .ci/web-tools`` installs it), one process per test."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rgs.engine import Action, BoxBet, CardBurned, CardDealt, Round
from rgs.engine.model import RoundView
from rgs.rng.fair import card_order, check_round, commitment, fair_source, table_client_seed
from rgs.variants import VARIANTS, find_variant
from unit.rng.test_rng_fair import KNOWN_FIRST_TEN

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "web" / "client" / "dist" / "index.js"
PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F))

# Reads {"op": ..., "cases": [...]} on stdin, answers one JSON result per case on stdout.
DRIVER = """
import {
  cardOrder, commitmentOf, tableClientSeed, verifyRound, verifyTableRound, verifyView,
} from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { op, cases } = JSON.parse(input);
const out = cases.map((c) => {
  if (op === "order") return cardOrder(c.seed, c.client, BigInt(c.round), c.decks);
  if (op === "commitment") return commitmentOf(c.seed);
  if (op === "round") return verifyRound({ ...c, roundNumber: BigInt(c.roundNumber) });
  if (op === "view") return verifyView(c.view, { holeCard: c.holeCard });
  if (op === "table-seed") return tableClientSeed(c.seats);
  if (op === "table") return verifyTableRound(c.fair, c.shown);
  throw new Error(op);
});
process.stdout.write(JSON.stringify(out));
"""


def node(op: str, cases: list[dict[str, Any]]) -> list[Any]:
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is missing: run `bash .ci/web-tools` (installs Debian's nodejs)")
    if not CLIENT.exists():
        pytest.fail(f"{CLIENT} is missing: run `cd web/client && npm ci && npm run build`")
    done = subprocess.run([exe, "--input-type=module", "-e", DRIVER % json.dumps(str(CLIENT))],
                          input=json.dumps({"op": op, "cases": cases}), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: list[Any] = json.loads(done.stdout)
    assert len(result) == len(cases)
    return result


def test_the_known_answer_of_docs_rng_md() -> None:
    seed = bytes(range(32))
    order, = node("order", [{"seed": seed.hex(), "client": "", "round": "1", "decks": 1}])
    assert " ".join(order[:10]) == KNOWN_FIRST_TEN
    assert order == card_order(seed, "", 1, 1)
    assert node("commitment", [{"seed": seed.hex()}]) == [commitment(seed)]


def test_random_inputs_give_the_servers_order_card_for_card() -> None:
    rng = random.Random(17)
    cases: list[dict[str, Any]] = []
    for i in range(40):
        seed = rng.randbytes(32)
        client = "".join(rng.choice(PRINTABLE) for _ in range(rng.choice([0, 1, 8, 64])))
        round_number = rng.choice([1, 2, rng.randrange(1, 1 << 20), (1 << 128) - 1 - i])
        decks = rng.choice([1, 2, 6, 8])
        cases.append({"seed": seed.hex(), "client": client, "round": str(round_number),
                      "decks": decks, "want": card_order(seed, client, round_number, decks)})
    got = node("order", cases)
    for case, order in zip(cases, got, strict=True):
        assert order == case["want"], case
    # The commitment too (SHA-256 of the seed bytes).
    assert node("commitment", cases) == [commitment(bytes.fromhex(c["seed"])) for c in cases]


def test_verify_round_judges_dealt_cards_as_check_round_does() -> None:
    rng = random.Random(7)
    cases: list[dict[str, Any]] = []
    for _ in range(12):
        seed = rng.randbytes(32)
        client = rng.choice(["", "lucky", "a b~c"])
        number, decks = rng.randrange(1, 999), rng.choice([1, 6, 8])
        order = card_order(seed, client, number, decks)
        n = rng.randrange(4, 20)
        swapped = [*order[:2], order[3], order[2], *order[4:n]]
        for dealt, published in ((order[:n], commitment(seed)), (swapped, commitment(seed)),
                                 (order[:n], commitment(rng.randbytes(32)))):
            cases.append({"serverSeed": seed.hex(), "commitment": published,
                          "clientSeed": client, "roundNumber": str(number), "decks": decks,
                          "dealt": dealt})
    for case, got in zip(cases, node("round", cases), strict=True):
        want = check_round(server_seed=bytes.fromhex(case["serverSeed"]),
                           published=case["commitment"], client_seed=case["clientSeed"],
                           round_number=int(case["roundNumber"]), decks=case["decks"],
                           dealt=case["dealt"])
        assert (got["ok"], got["lines"]) == (want.ok, list(want.lines))


def _random_round(variant: str, rng: random.Random) -> tuple[Round, bytes, str, int]:
    """A fair round of ``variant`` from random seeds, played with random legal decisions
    (splits and Power Replace as often as they come)."""
    rules = find_variant(variant)
    seed, client = rng.randbytes(32), rng.choice(["", "x", "seed 42"])
    number = rng.randrange(1, 500)
    boxes = rng.randint(1, min(3, rules.max_boxes))
    seats = sorted(rng.sample(range(1, rules.max_boxes + 1), boxes))
    rnd = Round.deal(rules, fair_source(seed, client, number, rules.decks),
                     [BoxBet(seat=s, stake=rules.limits.main_min) for s in seats])
    prefer = (Action.SPLIT, Action.POWER_SPLIT, Action.POWER_REPLACE, Action.POWER_DOUBLE,
              Action.HIT)
    while not rnd.finished:
        options: list[tuple[int, int, Action]] = [
            (s, 0, la.action) for s in rnd.seats() for la in rnd.legal_actions(s, 0)
            if la.action in (Action.INSURE, Action.DECLINE_INSURANCE)]
        if rnd.to_act is not None:
            seat, hand = rnd.to_act
            options += [(seat, hand, la.action) for la in rnd.legal_actions(seat, hand)]
        liked = [o for o in options if o[2] in prefer]
        rnd.act(*rng.choice(liked if liked and rng.random() < 0.7 else options))
    return rnd, seed, client, number


def _view_json(view: RoundView, seed: bytes, client: str, number: int, decks: int
               ) -> dict[str, Any]:
    """The fields of the round's RoundView the verifier reads, as the client gets them."""
    return {"dealerCards": list(view.dealer_cards),
            "boxes": [{"seat": b.seat, "hands": [{"cards": list(h.cards), "doubled": h.doubled}
                                                 for h in b.hands]} for b in view.boxes],
            "fair": {"verifiable": True, "commitment": commitment(seed), "clientSeed": client,
                     "roundNumber": str(number), "decks": decks, "serverSeed": seed.hex()}}


def test_from_a_rounds_view_the_verifier_finds_the_cards_the_engine_dealt() -> None:
    rng = random.Random(2026)
    cases, dealt, tampered = [], [], []
    with_list: list[dict[str, Any]] = []
    wrong_list: list[dict[str, Any]] = []
    burned = splits = resplits = 0
    for variant in sorted(VARIANTS):
        rules = find_variant(variant)
        for _ in range(400 if variant == "power" else 80):  # Power Double needs 9 to 11
            rnd, seed, client, number = _random_round(variant, rng)
            view = _view_json(rnd.view(), seed, client, number, rules.decks)
            cases.append({"view": view, "holeCard": rules.hole_card})
            dealt.append([e.card for e in rnd.events if isinstance(e, CardDealt)])
            burned += sum(isinstance(e, CardBurned) for e in rnd.events)
            splits += sum(len(b["hands"]) - 1 for b in view["boxes"])
            resplits += sum(len(b["hands"]) > 2 for b in view["boxes"])
            # The same view with one shown card changed to another card of the shoe.
            changed = json.loads(json.dumps(view))
            places = [h["cards"] for b in changed["boxes"] for h in b["hands"]]
            places.append(changed["dealerCards"])
            cards = rng.choice([p for p in places if p])
            i = rng.randrange(len(cards))
            cards[i] = next(c for c in card_order(seed, client, number, rules.decks)
                            if c[0] != cards[i][0])
            tampered.append({"view": changed, "holeCard": rules.hole_card})
            # The server's list of dealt cards (Fairness.dealt_cards): the view's dealing
            # verifies with it, and a list that differs from the cards shown never does.
            listed = json.loads(json.dumps(view))
            listed["fair"]["dealtCards"] = dealt[-1]
            with_list.append({"view": listed, "holeCard": rules.hole_card})
            wrong = json.loads(json.dumps(listed))
            j = rng.randrange(len(dealt[-1]))
            wrong["fair"]["dealtCards"][j] = next(
                c for c in card_order(seed, client, number, rules.decks)
                if c != dealt[-1][j])
            wrong_list.append({"view": wrong, "holeCard": rules.hole_card})
    # The hard cases did come up: burned cards, splits, resplits (three hands or more).
    assert burned >= 5 and splits >= 20 and resplits >= 3, (burned, splits, resplits)
    for case, want, got in zip(cases, dealt, node("view", cases), strict=True):
        n = len(want)
        assert got["ok"], (case, want, got["lines"])
        assert f"the {n} cards dealt are the first {n} of the order ({' '.join(want)})" \
            in got["lines"], (want, got["lines"])
    for case, got in zip(tampered, node("view", tampered), strict=True):
        assert not got["ok"], case
        assert any(line.startswith("card ") and "the order has" in line
                   for line in got["lines"]), got["lines"]
    assert all(got["ok"] for got in node("view", with_list))
    for case, got in zip(wrong_list, node("view", wrong_list), strict=True):
        assert not got["ok"], case
        assert any("but its view shows the dealing" in line for line in got["lines"]), got


def test_a_changed_seed_or_unverifiable_round_never_verifies() -> None:
    rng = random.Random(3)
    rnd, seed, client, number = _random_round("classic-resplit", rng)
    view = _view_json(rnd.view(), seed, client, number, 6)
    other = dict(view, fair=dict(view["fair"], serverSeed=rng.randbytes(32).hex()))
    forced = dict(view, fair=dict(view["fair"], verifiable=False))
    unrevealed = dict(view, fair=dict(view["fair"], serverSeed=""))
    bad_hex = dict(view, fair=dict(view["fair"], serverSeed="zz" * 32))
    got = node("view", [{"view": v, "holeCard": True}
                        for v in (other, forced, unrevealed, bad_hex)])
    assert [g["ok"] for g in got] == [False] * 4
    assert "but the commitment is" in got[0]["lines"][0]
    assert "cannot be verified" in got[1]["lines"][0]
    assert "revealed when the round is over" in got[2]["lines"][0]
    assert "server seed is hex" in got[3]["lines"][0]


def _camel(fields: dict[str, Any]) -> dict[str, Any]:
    """A TableFairness (or SeatSeed) as protobuf-es gives it to the page: camelCase fields."""
    def name(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(w.title() for w in rest)
    return {name(k): [_camel(x) for x in v] if k == "seat_seeds" else v
            for k, v in fields.items()}


def test_a_table_rounds_client_seed_and_revealed_cards_verify_as_the_server_makes_them() -> None:
    """verifyTableRound on a finished table round's revealed fairness (round_finished's or the
    snapshot's last_round.fair): the seats' seeds make the client seed as rgs.rng.fair does,
    the dealt cards are the start of the order; a changed seat seed, card or shown commitment
    fails."""
    rng = random.Random(17)
    seat_cases = []
    for _ in range(30):
        seats = rng.sample(range(1, 8), rng.randint(0, 7))
        seat_cases.append([{"seat": s, "client_seed": "".join(
            rng.choice(PRINTABLE) for _ in range(rng.randint(0, 64)))} for s in seats])
    want = [table_client_seed([(x["seat"], x["client_seed"]) for x in c]) for c in seat_cases]
    assert node("table-seed", [{"seats": [_camel(x) for x in c]} for c in seat_cases]) == want
    cases, expect = [], []
    for seats in seat_cases[:10]:
        seed = rng.randbytes(32)
        client = table_client_seed([(x["seat"], x["client_seed"]) for x in seats])
        number, decks = rng.randint(1, 10_000), 8
        dealt = card_order(seed, client, number, decks)[:rng.randint(5, 16)]
        fair = {"verifiable": True, "commitment": commitment(seed), "round_number": number,
                "decks": decks, "client_seed": client, "seat_seeds": seats,
                "server_seed": seed.hex(), "dealt_cards": dealt}
        cases.append({"fair": fair, "shown": commitment(seed)})
        expect.append(True)
        changed_card = dict(fair, dealt_cards=[*dealt[:-1], next(
            c for c in card_order(seed, client, number, decks) if c != dealt[-1])])
        cases.append({"fair": changed_card})
        expect.append(False)
        cases.append({"fair": fair, "shown": commitment(rng.randbytes(32))})
        expect.append(False)
        if seats and any(x["client_seed"] for x in seats):
            other = [dict(x, client_seed=x["client_seed"] + "!") if x["client_seed"] else x
                     for x in seats]
            cases.append({"fair": dict(fair, seat_seeds=other)})
            expect.append(False)
        cases.append({"fair": dict(fair, verifiable=False)})
        expect.append(False)
    got = node("table", [dict(c, fair=_camel(c["fair"])) for c in cases])
    assert [g["ok"] for g in got] == expect, [g["lines"] for g in got]
