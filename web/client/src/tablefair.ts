// Verifying a shared table's round (docs/rng.md, "At a shared table"): the round's client seed
// is made from the seats' own seeds, and the revealed fairness of a finished round (the
// `round_finished` event's `fair`, or the idle snapshot's `last_round.fair`) lists its cards in
// the order they left the shoe, so a watcher verifies it without having seen the whole round.

import { clientSeedProblem, sha256, toHex, verifyRound, type FairCheck } from "./fair.js";

/** A table round's fairness as the table's snapshot and events carry it (snake_case JSON). */
export interface TableFairness {
  verifiable: boolean;
  commitment: string;
  round_number: number;
  decks: number;
  client_seed: string;
  seat_seeds: readonly { seat: number; client_seed: string }[];
  server_seed: string;
  dealt_cards?: readonly string[];
}

/**
 * A table round's client seed from its seats' seeds: the lower-case hex SHA-256 of one line
 * `<seat>:<seed>` + LF per seat that gave a non-empty seed, in seat order; "" when none did.
 */
export function tableClientSeed(seatSeeds: readonly { seat: number; client_seed: string }[]): string {
  const given = seatSeeds.filter((s) => s.client_seed !== "").slice().sort((a, b) => a.seat - b.seat);
  if (given.length === 0) return "";
  for (const s of given) {
    const problem = clientSeedProblem(s.client_seed);
    if (problem) throw new Error(`seat ${s.seat}'s client seed: ${problem}`);
  }
  const text = given.map((s) => `${s.seat}:${s.client_seed}\n`).join("");
  return toHex(sha256(new TextEncoder().encode(text)));
}

/**
 * Verify a finished table round from its revealed fairness: the client seed is the one its
 * seats' seeds make, SHA-256(server seed) is the commitment (and the one shown when betting
 * opened, when given), and the dealt cards are the first of the order. Never throws.
 */
export function verifyTableRound(fair: TableFairness, shownCommitment?: string): FairCheck {
  if (!fair.verifiable) {
    return { ok: false, lines: ["this round cannot be verified: its cards were forced (test mode) or it was dealt before provably fair rounds"] };
  }
  if (!fair.server_seed) {
    return { ok: false, lines: ["the server seed is revealed when the round is over: verify it then"] };
  }
  const lines: string[] = [];
  let ok = true;
  let combined: string;
  try {
    combined = tableClientSeed(fair.seat_seeds);
  } catch (error) {
    return { ok: false, lines: [(error as Error).message] };
  }
  if (combined === fair.client_seed) {
    lines.push(fair.client_seed === "" ? "no seat gave a client seed (the client seed is empty)"
      : `the client seed ${fair.client_seed} is SHA-256 of the seats' seeds`);
  } else {
    ok = false;
    lines.push(`the seats' seeds make the client seed ${combined || '""'}, the round used ${fair.client_seed || '""'}`);
  }
  const check = verifyRound({
    serverSeed: fair.server_seed, commitment: fair.commitment, clientSeed: fair.client_seed,
    roundNumber: fair.round_number, decks: fair.decks, dealt: fair.dealt_cards ?? [], shownCommitment,
  });
  if ((fair.dealt_cards ?? []).length === 0) {
    return { ok: false, lines: [...lines, ...check.lines, "the round lists no dealt cards to check"] };
  }
  return { ok: ok && check.ok, lines: [...lines, ...check.lines] };
}
