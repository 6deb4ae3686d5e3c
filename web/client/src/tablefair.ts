// Verifying a shared table's round (docs/rng.md, "At a shared table"): the round's client seed
// is made from the seats' own seeds, and the revealed fairness of a finished round (the
// `roundFinished` event's `fair`, or the snapshot's `lastRound.fair`) lists its cards in the
// order they left the shoe, so a watcher verifies it without having seen the whole round.

import { clientSeedProblem, sha256, toHex, verifyRound, type FairCheck } from "./fair.js";
import type { TableFairness as TableFairnessMessage } from "./gen/rgs/table/v1/table_pb.js";

/** A table round's fairness as the table's snapshot and events carry it
 * (`rgs.table.v1.TableFairness`). */
export type TableFairness = Pick<TableFairnessMessage,
  "verifiable" | "commitment" | "roundNumber" | "decks" | "clientSeed" | "serverSeed" |
  "dealtCards"> & { seatSeeds: readonly { seat: number; clientSeed: string }[] };

/**
 * A table round's client seed from its seats' seeds: the lower-case hex SHA-256 of one line
 * `<seat>:<seed>` + LF per seat that gave a non-empty seed, in seat order; "" when none did.
 */
export function tableClientSeed(seatSeeds: readonly { seat: number; clientSeed: string }[]): string {
  const given = seatSeeds.filter((s) => s.clientSeed !== "").slice().sort((a, b) => a.seat - b.seat);
  if (given.length === 0) return "";
  for (const s of given) {
    const problem = clientSeedProblem(s.clientSeed);
    if (problem) throw new Error(`seat ${s.seat}'s client seed: ${problem}`);
  }
  const text = given.map((s) => `${s.seat}:${s.clientSeed}\n`).join("");
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
  if (!fair.serverSeed) {
    return { ok: false, lines: ["the server seed is revealed when the round is over: verify it then"] };
  }
  const lines: string[] = [];
  let ok = true;
  let combined: string;
  try {
    combined = tableClientSeed(fair.seatSeeds);
  } catch (error) {
    return { ok: false, lines: [(error as Error).message] };
  }
  if (combined === fair.clientSeed) {
    lines.push(fair.clientSeed === "" ? "no seat gave a client seed (the client seed is empty)"
      : `the client seed ${fair.clientSeed} is SHA-256 of the seats' seeds`);
  } else {
    ok = false;
    lines.push(`the seats' seeds make the client seed ${combined || '""'}, the round used ${fair.clientSeed || '""'}`);
  }
  const check = verifyRound({
    serverSeed: fair.serverSeed, commitment: fair.commitment, clientSeed: fair.clientSeed,
    roundNumber: Number(fair.roundNumber), decks: fair.decks, dealt: fair.dealtCards, shownCommitment,
  });
  if (fair.dealtCards.length === 0) {
    return { ok: false, lines: [...lines, ...check.lines, "the round lists no dealt cards to check"] };
  }
  return { ok: ok && check.ok, lines: [...lines, ...check.lines] };
}
