import { hmacSha256, fromHex, sha256, toHex } from "./sha256.js";
export { sha256, hmacSha256, toHex, fromHex };
/** Bytes per Generate request of a fair card order. */
export declare const FAIR_BLOCK_BYTES = 1024;
/** The server seed's length in bytes. */
export declare const SERVER_SEED_BYTES = 32;
/** The longest client seed, in characters. */
export declare const MAX_CLIENT_SEED = 64;
/** An input of the fair function is malformed (the message says which and how). */
export declare class FairInputError extends Error {
    constructor(message: string);
}
/** Why ``clientSeed`` would be refused (0-64 printable ASCII characters), or undefined. */
export declare function clientSeedProblem(clientSeed: string): string | undefined;
/** HMAC_DRBG with SHA-256 (SP 800-90A §10.1.2): Instantiate and Generate, no reseed. */
export declare class HmacDrbg {
    private k;
    private v;
    constructor(entropyInput: Uint8Array, nonce: Uint8Array, personalization: Uint8Array);
    /** ``nbytes`` bytes of output (one Generate request without additional input). */
    generate(nbytes: number): Uint8Array;
    private update;
}
/** Unbiased integers below n from a DRBG read in 1,024-byte requests (step 3). */
export declare class FairRng {
    private readonly drbg;
    private readonly blockBytes;
    private buf;
    private pos;
    constructor(drbg: HmacDrbg, blockBytes?: number);
    /** A uniformly distributed integer in [0, n) (rejection sampling, no modulo bias). */
    below(n: number): number;
}
/** The round's DRBG, instantiated from its inputs (step 1); throws FairInputError. */
export declare function fairDrbg(serverSeedHex: string, clientSeed: string, roundNumber: number | bigint): HmacDrbg;
/** The shoe of ``decks`` decks before any draw (step 4's starting order). */
export declare function freshShoe(decks: number): string[];
/** The round's whole card order: every card of ``decks`` decks, the first dealt first. */
export declare function cardOrder(serverSeedHex: string, clientSeed: string, roundNumber: number | bigint, decks: number): string[];
/** The commitment to a server seed: SHA-256 of its bytes, lower-case hex. */
export declare function commitmentOf(serverSeedHex: string): string;
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
export declare function verifyRound(input: RoundCheck): FairCheck;
/** Append the commitment lines (SHA-256 of the seed against the round's commitment and, when
 * given, the one shown before the bet) to ``lines``; true when they all agree. */
export declare function checkCommitments(serverSeed: string, commitment: string, shown: string | undefined, lines: string[]): boolean;
