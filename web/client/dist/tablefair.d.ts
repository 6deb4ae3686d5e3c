import { type FairCheck } from "./fair.js";
/** A table round's fairness as the table's snapshot and events carry it (snake_case JSON). */
export interface TableFairness {
    verifiable: boolean;
    commitment: string;
    round_number: number;
    decks: number;
    client_seed: string;
    seat_seeds: readonly {
        seat: number;
        client_seed: string;
    }[];
    server_seed: string;
    dealt_cards?: readonly string[];
}
/**
 * A table round's client seed from its seats' seeds: the lower-case hex SHA-256 of one line
 * `<seat>:<seed>` + LF per seat that gave a non-empty seed, in seat order; "" when none did.
 */
export declare function tableClientSeed(seatSeeds: readonly {
    seat: number;
    client_seed: string;
}[]): string;
/**
 * Verify a finished table round from its revealed fairness: the client seed is the one its
 * seats' seeds make, SHA-256(server seed) is the commitment (and the one shown when betting
 * opened, when given), and the dealt cards are the first of the order. Never throws.
 */
export declare function verifyTableRound(fair: TableFairness, shownCommitment?: string): FairCheck;
