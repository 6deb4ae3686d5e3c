// Verifying a round from what a game client has: its RoundView. The view shows each hand's and
// the dealer's cards, not the order they were dealt in; the engine's dealing order is fixed,
// though (docs/rng.md): one card to each box in seat order, the dealer's up card, a second card
// to each box, the hole card in hole-card games; then the hands in play order (a split hand gets
// its second card when it comes into play, a split moves the second card to a new hand right
// after it); then the dealer's draws. So the dealt sequence follows from the view and the
// player's decisions, and the only decisions that change which card goes where are splits and
// Power Replace (which burns the Power Double card: the view no longer shows it). dealtFromView
// replays the order through that dealing, trying those decisions where the view allows them,
// and finds the dealing that explains every card shown, or the first card that none explains.

import { cardOrder, checkCommitments, verifyRound, type FairCheck } from "./fair.js";

/** The fields of `Fairness` the verifier reads. */
export interface FairnessLike {
  verifiable: boolean;
  commitment: string;
  clientSeed: string;
  roundNumber: number | bigint;
  decks: number;
  serverSeed: string;
  /** The cards in the order they left the shoe, as the server lists them once the round is
   * over (RGS releases with `Fairness.dealt_cards`); absent or empty from older servers. */
  dealtCards?: readonly string[];
}

/** The fields of a `RoundView` the verifier reads (a RoundView of @rgs/client is one). */
export interface RoundViewLike {
  fair?: FairnessLike;
  dealerCards: readonly string[];
  boxes: readonly {
    seat: number;
    hands: readonly { cards: readonly string[]; doubled: boolean }[];
  }[];
}

/** How to read a view: whether the variant deals a hole card (`Variant.holeCard`), and the
 * commitment the client showed before the bet (checked against the round's, when given). */
export interface ViewCheckOptions {
  holeCard: boolean;
  shownCommitment?: string;
}

/** A card of the order that no dealing explains: position (0-based), what the view shows
 * there, what the order has, and where it went. */
export interface Miss {
  at: number;
  shown: string;
  order: string;
  where: string;
}

/** The dealt cards a view implies, in dealing order (as the view shows them; a burned or
 * face-down card, which the view does not show, is taken from the order and listed). */
export interface Dealing {
  dealt: string[];
  burned: number[];
  faceDown: number[];
}

interface Placed {
  card: string;
  pos: number;
}

interface Sim {
  hands: Placed[][][];
  cursor: number;
  shown: (string | undefined)[];
  burned: number[];
  faceDown: number[];
}

const clone = (s: Sim): Sim => ({
  hands: s.hands.map((box) => box.map((hand) => hand.slice())),
  cursor: s.cursor,
  shown: s.shown.slice(),
  burned: s.burned.slice(),
  faceDown: s.faceDown.slice(),
});

/** The dealing of ``order`` that explains every card ``view`` shows, or the deepest miss. */
export function dealtFromView(view: RoundViewLike, order: readonly string[], holeCard: boolean): Dealing | { miss: Miss } {
  const boxes = view.boxes;
  const nb = boxes.length;
  const dealer = view.dealerCards;
  let deepest: Miss | undefined;
  const missed = (m: Miss): undefined => {
    if (!deepest || m.at > deepest.at) deepest = m;
    return undefined;
  };
  const card = (pos: number): string => order[pos] ?? "(no card left in the shoe)";
  const handName = (b: number, a: number) => `seat ${boxes[b].seat}, hand ${a + 1}`;

  function dealTo(s: Sim, hand: Placed[]): boolean {
    if (s.cursor >= order.length) return false;
    hand.push({ card: order[s.cursor], pos: s.cursor });
    s.cursor += 1;
    return true;
  }

  // The hand's cards so far must be the start of what the view shows; deal it the rest, or (a
  // doubled hand) burn the card before its last one, as Power Replace does.
  function finishHand(s: Sim, b: number, a: number, burn: boolean): Sim | undefined {
    const hand = s.hands[b][a];
    const want = boxes[b].hands[a]?.cards ?? [];
    if (want.length < hand.length) {
      const extra = hand[want.length];
      return missed({ at: extra.pos, shown: "no card", order: extra.card, where: handName(b, a) });
    }
    for (const [i, placed] of hand.entries()) {
      if (placed.card !== want[i]) return missed({ at: placed.pos, shown: want[i], order: placed.card, where: handName(b, a) });
      s.shown[placed.pos] = want[i];
    }
    for (let i = hand.length; i < want.length; i++) {
      if (burn && i === want.length - 1) {
        s.shown[s.cursor] = order[s.cursor];
        s.burned.push(s.cursor);
        s.cursor += 1;
      }
      if (card(s.cursor) !== want[i]) return missed({ at: s.cursor, shown: want[i], order: card(s.cursor), where: handName(b, a) });
      s.shown[s.cursor] = want[i];
      dealTo(s, hand);
    }
    return s;
  }

  function play(s: Sim, b: number, a: number): Sim | undefined {
    if (b === nb) return dealerDraws(s);
    const hands = s.hands[b];
    const shownHands = boxes[b].hands;
    if (a === hands.length) {
      if (hands.length < shownHands.length) {
        return missed({ at: s.cursor, shown: shownHands[hands.length].cards[0] ?? "no card", order: card(s.cursor),
          where: `${handName(b, hands.length)} (no split explains this hand)` });
      }
      return play(s, b + 1, 0);
    }
    const want = shownHands[a]?.cards ?? [];
    if (hands[a].length === 1 && want.length >= 2 && !dealTo(s, hands[a])) return undefined;
    for (const burn of shownHands[a]?.doubled ? [false, true] : [false]) {
      const done = finishHand(clone(s), b, a, burn);
      const rest = done && play(done, b, a + 1);
      if (rest) return rest;
    }
    if (hands[a].length === 2 && hands.length < shownHands.length) {
      const split = clone(s);
      const hand = split.hands[b][a];
      split.hands[b].splice(a + 1, 0, [hand.pop() as Placed]);
      if (!dealTo(split, hand)) return undefined;
      return play(split, b, a);
    }
    return undefined;
  }

  function dealerDraws(s: Sim): Sim | undefined {
    for (let i = holeCard ? 2 : 1; i < dealer.length; i++) {
      if (card(s.cursor) !== dealer[i]) return missed({ at: s.cursor, shown: dealer[i], order: card(s.cursor), where: "the dealer" });
      s.shown[s.cursor] = dealer[i];
      s.cursor += 1;
    }
    return s;
  }

  // The deal: a card to each box, the up card, a second card to each box, the hole card.
  const start: Sim = { hands: [], cursor: holeCard ? 2 * nb + 2 : 2 * nb + 1, shown: [], burned: [], faceDown: [] };
  for (let b = 0; b < nb; b++) {
    start.hands.push([[{ card: card(b), pos: b }, { card: card(nb + 1 + b), pos: nb + 1 + b }]]);
  }
  if (dealer.length && dealer[0] !== card(nb)) {
    return { miss: { at: nb, shown: dealer[0], order: card(nb), where: "the dealer's up card" } };
  }
  start.shown[nb] = dealer[0] ?? card(nb);
  if (holeCard) {
    const hole = 2 * nb + 1;
    if (dealer.length >= 2 && dealer[1] !== card(hole)) {
      return { miss: { at: hole, shown: dealer[1], order: card(hole), where: "the dealer's hole card" } };
    }
    start.shown[hole] = dealer[1] ?? card(hole);
    if (dealer.length < 2) start.faceDown.push(hole);
  }
  const found = play(start, 0, 0);
  if (!found) {
    return { miss: deepest ?? { at: 0, shown: "?", order: card(0), where: "the deal" } };
  }
  const dealt = found.shown.slice(0, found.cursor);
  for (let i = 0; i < dealt.length; i++) {
    if (dealt[i] === undefined) return { miss: { at: i, shown: "no card", order: card(i), where: "the round" } };
  }
  return { dealt: dealt as string[], burned: found.burned, faceDown: found.faceDown };
}

/** Verify a finished round from its view: SHA-256(server seed) is the commitment (and the one
 * shown before the bet, when given), and the cards shown are the ones the order deals. */
export function verifyView(view: RoundViewLike, options: ViewCheckOptions): FairCheck {
  const fair = view.fair;
  if (!fair || !fair.verifiable) {
    return { ok: false, lines: ["this round cannot be verified: its cards were forced (test mode) or it was dealt before provably fair rounds"] };
  }
  if (!fair.serverSeed) {
    return { ok: false, lines: ["the server seed is revealed when the round is over: verify it then"] };
  }
  let order: string[];
  try {
    order = cardOrder(fair.serverSeed, fair.clientSeed, fair.roundNumber, fair.decks);
  } catch (error) {
    const lines: string[] = [];
    checkCommitments(fair.serverSeed, fair.commitment, options.shownCommitment, lines);
    return { ok: false, lines: [...lines, `cannot recompute the order: ${(error as Error).message}`] };
  }
  const dealing = dealtFromView(view, order, options.holeCard);
  if ("miss" in dealing) {
    const lines: string[] = [];
    checkCommitments(fair.serverSeed, fair.commitment, options.shownCommitment, lines);
    const m = dealing.miss;
    lines.push(`card ${m.at + 1} dealt (${m.where}) was ${m.shown}, the order has ${m.order} `
      + `(the order starts ${order.slice(0, Math.max(m.at + 1, 4)).join(" ")})`);
    return { ok: false, lines };
  }
  const listed = fair.dealtCards ?? [];
  if (listed.length > 0) {
    // The server's list of the dealt cards must be the very dealing the view shows: a list
    // that verifies against the order but differs from the cards on screen proves nothing.
    const at = listed.length === dealing.dealt.length
      ? dealing.dealt.findIndex((c, i) => c !== listed[i]) : Math.min(listed.length, dealing.dealt.length);
    if (at >= 0) {
      const lines: string[] = [];
      checkCommitments(fair.serverSeed, fair.commitment, options.shownCommitment, lines);
      lines.push(`the round lists ${listed.length} cards dealt (${listed.join(" ")}), but its `
        + `view shows the dealing ${dealing.dealt.join(" ")} (they differ at card ${at + 1})`);
      return { ok: false, lines };
    }
  }
  const check = verifyRound({
    serverSeed: fair.serverSeed, commitment: fair.commitment, clientSeed: fair.clientSeed,
    roundNumber: fair.roundNumber, decks: fair.decks, dealt: dealing.dealt, shownCommitment: options.shownCommitment,
  });
  for (const pos of dealing.burned) check.lines.push(`card ${pos + 1} (${dealing.dealt[pos]}) was burned by Power Replace: not shown, it is the order's`);
  for (const pos of dealing.faceDown) check.lines.push(`card ${pos + 1} is the dealer's hole card, still face down`);
  return check;
}
