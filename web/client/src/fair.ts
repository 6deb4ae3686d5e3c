// Provably fair rounds, checked in the browser: the card order of docs/rng.md ("Provably fair
// rounds"), byte for byte the function the RGS deals from (rgs.rng.fair), and the checks
// `rgs verify` makes: SHA-256(server seed) is the commitment published before the bet, and the
// round's dealt cards are the first cards of the order.
//
//   1. HMAC_DRBG (SHA-256, SP 800-90A §10.1.2) instantiated with entropy_input = the 32-byte
//      server seed, nonce = the round number as 16 bytes big-endian, personalization =
//      "rgs-fair-v1", one zero byte, the client seed's ASCII bytes; never reseeded.
//   2. Its output read as Generate requests of 1,024 bytes.
//   3. below(n): the fewest whole bytes holding k = bit_length(n - 1) bits, big-endian, low k
//      bits kept, values >= n rejected; a read that does not fit in the rest of a request skips
//      that rest and starts the next request.
//   4. The shoe: `decks` copies of AS 2S .. KS AH .. KC; each draw takes the card at
//      i = below(cards left) and moves the last card into slot i.

import { hmacSha256, fromHex, sha256, toHex } from "./sha256.js";

export { sha256, hmacSha256, toHex, fromHex };

/** Bytes per Generate request of a fair card order. */
export const FAIR_BLOCK_BYTES = 1024;
/** The server seed's length in bytes. */
export const SERVER_SEED_BYTES = 32;
/** The longest client seed, in characters. */
export const MAX_CLIENT_SEED = 64;
const DOMAIN = "rgs-fair-v1";
const RANKS = "A23456789TJQK";
const SUITS = "SHDC";

/** An input of the fair function is malformed (the message says which and how). */
export class FairInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FairInputError";
  }
}

/** Why ``clientSeed`` would be refused (0-64 printable ASCII characters), or undefined. */
export function clientSeedProblem(clientSeed: string): string | undefined {
  if (clientSeed.length > MAX_CLIENT_SEED) return `a client seed is at most ${MAX_CLIENT_SEED} characters`;
  if (!/^[\x20-\x7e]*$/.test(clientSeed)) return "a client seed is printable ASCII (space to ~) only";
  return undefined;
}

/** HMAC_DRBG with SHA-256 (SP 800-90A §10.1.2): Instantiate and Generate, no reseed. */
export class HmacDrbg {
  private k: Uint8Array = new Uint8Array(32);
  private v: Uint8Array = new Uint8Array(32).fill(1);

  constructor(entropyInput: Uint8Array, nonce: Uint8Array, personalization: Uint8Array) {
    this.update(concat(entropyInput, nonce, personalization));
  }

  /** ``nbytes`` bytes of output (one Generate request without additional input). */
  generate(nbytes: number): Uint8Array {
    const out = new Uint8Array(Math.ceil(nbytes / 32) * 32);
    for (let at = 0; at < nbytes; at += 32) {
      this.v = hmacSha256(this.k, this.v);
      out.set(this.v, at);
    }
    this.update(new Uint8Array(0));
    return out.slice(0, nbytes);
  }

  private update(provided: Uint8Array): void {
    this.k = hmacSha256(this.k, concat(this.v, Uint8Array.of(0), provided));
    this.v = hmacSha256(this.k, this.v);
    if (provided.length) {
      this.k = hmacSha256(this.k, concat(this.v, Uint8Array.of(1), provided));
      this.v = hmacSha256(this.k, this.v);
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Unbiased integers below n from a DRBG read in 1,024-byte requests (step 3). */
export class FairRng {
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;

  constructor(private readonly drbg: HmacDrbg, private readonly blockBytes = FAIR_BLOCK_BYTES) {}

  /** A uniformly distributed integer in [0, n) (rejection sampling, no modulo bias). */
  below(n: number): number {
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`below(n) needs an integer n >= 1, got ${n}`);
    if (n === 1) return 0;
    const k = (n - 1).toString(2).length;
    const width = (k + 7) >> 3;
    const modulus = 2 ** k;
    for (;;) {
      if (this.pos + width > this.buf.length) {
        this.buf = this.drbg.generate(Math.max(this.blockBytes, width));
        this.pos = 0;
      }
      let v = 0;
      for (let i = 0; i < width; i++) v = v * 256 + this.buf[this.pos + i];
      this.pos += width;
      v %= modulus; // the low k bits
      if (v < n) return v;
    }
  }
}

/** The round's DRBG, instantiated from its inputs (step 1); throws FairInputError. */
export function fairDrbg(serverSeedHex: string, clientSeed: string, roundNumber: number | bigint): HmacDrbg {
  const seed = fromHex(serverSeedHex);
  if (!seed || seed.length !== SERVER_SEED_BYTES) {
    throw new FairInputError(`a server seed is ${SERVER_SEED_BYTES} bytes (${2 * SERVER_SEED_BYTES} hex digits), got ${JSON.stringify(serverSeedHex)}`);
  }
  const problem = clientSeedProblem(clientSeed);
  if (problem) throw new FairInputError(problem);
  let round: bigint;
  try {
    round = BigInt(roundNumber);
  } catch {
    throw new FairInputError("a round number is a non-negative integer below 2^128");
  }
  if (round < 0n || round >= 1n << 128n) throw new FairInputError("a round number is a non-negative integer below 2^128");
  const nonce = new Uint8Array(16);
  for (let i = 15; i >= 0; i--, round >>= 8n) nonce[i] = Number(round & 0xffn);
  const personalization = new TextEncoder().encode(`${DOMAIN}\x00${clientSeed}`);
  return new HmacDrbg(seed, nonce, personalization);
}

/** The shoe of ``decks`` decks before any draw (step 4's starting order). */
export function freshShoe(decks: number): string[] {
  if (!Number.isInteger(decks) || decks < 1 || decks > 64) throw new FairInputError(`a shoe has 1 to 64 decks, got ${decks}`);
  const deck = [...SUITS].flatMap((s) => [...RANKS].map((r) => r + s));
  return Array.from({ length: decks }, () => deck).flat();
}

/** The round's whole card order: every card of ``decks`` decks, the first dealt first. */
export function cardOrder(serverSeedHex: string, clientSeed: string, roundNumber: number | bigint, decks: number): string[] {
  const shoe = freshShoe(decks);
  const rng = new FairRng(fairDrbg(serverSeedHex, clientSeed, roundNumber));
  const order: string[] = [];
  while (shoe.length) {
    const i = rng.below(shoe.length);
    order.push(shoe[i]);
    const last = shoe.pop() as string;
    if (i < shoe.length) shoe[i] = last;
  }
  return order;
}

/** The commitment to a server seed: SHA-256 of its bytes, lower-case hex. */
export function commitmentOf(serverSeedHex: string): string {
  const seed = fromHex(serverSeedHex);
  if (!seed) throw new FairInputError(`a server seed is hex, got ${JSON.stringify(serverSeedHex)}`);
  return toHex(sha256(seed));
}

/** The outcome of a check: ``ok`` and one line per thing checked or found different. */
export interface FairCheck {
  ok: boolean;
  lines: string[];
}

/** What verifyRound checks: the round's revealed inputs and its dealt cards in dealing order
 * (the `card_dealt` steps of the operator's recall). */
export interface RoundCheck {
  serverSeed: string;
  /** The round's commitment (`fair.commitment`). */
  commitment: string;
  clientSeed: string;
  roundNumber: number | bigint;
  decks: number;
  dealt: readonly string[];
  /** The commitment this client showed the player before the bet, when it kept it. */
  shownCommitment?: string;
}

/** Check that SHA-256(serverSeed) is the commitment and ``dealt`` is the start of the order
 * (the same lines as `rgs verify`); never throws: malformed input is a failed check. */
export function verifyRound(input: RoundCheck): FairCheck {
  const lines: string[] = [];
  let ok = checkCommitments(input.serverSeed, input.commitment, input.shownCommitment, lines);
  let order: string[];
  try {
    order = cardOrder(input.serverSeed, input.clientSeed, input.roundNumber, input.decks);
  } catch (error) {
    return { ok: false, lines: [...lines, `cannot recompute the order: ${(error as Error).message}`] };
  }
  const dealt = input.dealt;
  if (dealt.length > order.length) {
    return { ok: false, lines: [...lines, `${dealt.length} cards dealt from a shoe of ${order.length}`] };
  }
  const expected = order.slice(0, dealt.length);
  const diff = dealt.findIndex((card, i) => card !== expected[i]);
  if (diff < 0) {
    lines.push(`the ${dealt.length} cards dealt are the first ${dealt.length} of the order (${expected.join(" ")})`);
  } else {
    ok = false;
    lines.push(`card ${diff + 1} dealt was ${dealt[diff]}, the order has ${expected[diff]} (expected ${expected.join(" ")}, dealt ${dealt.join(" ")})`);
  }
  return { ok, lines };
}

/** Append the commitment lines (SHA-256 of the seed against the round's commitment and, when
 * given, the one shown before the bet) to ``lines``; true when they all agree. */
export function checkCommitments(serverSeed: string, commitment: string, shown: string | undefined, lines: string[]): boolean {
  let ok = true;
  let hashed: string | undefined;
  try {
    hashed = commitmentOf(serverSeed);
  } catch (error) {
    lines.push((error as Error).message);
    return false;
  }
  if (hashed === commitment.toLowerCase()) {
    lines.push(`SHA-256(server seed) = ${hashed} (the commitment)`);
  } else {
    ok = false;
    lines.push(`SHA-256(server seed) = ${hashed}, but the commitment is ${commitment}`);
  }
  if (shown !== undefined) {
    if (shown.toLowerCase() === commitment.toLowerCase()) {
      lines.push("the commitment is the one shown before the bet");
    } else {
      ok = false;
      lines.push(`the commitment shown before the bet was ${shown}, the round's is ${commitment}`);
    }
  }
  return ok;
}
