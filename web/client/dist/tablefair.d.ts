import { type FairCheck } from "./fair.js";
import type { TableFairness as TableFairnessMessage } from "./gen/rgs/table/v1/table_pb.js";
/** A table round's fairness as the table's snapshot and events carry it
 * (`rgs.table.v1.TableFairness`). */
export type TableFairness = Pick<TableFairnessMessage, "verifiable" | "commitment" | "roundNumber" | "decks" | "clientSeed" | "serverSeed" | "dealtCards"> & {
    seatSeeds: readonly {
        seat: number;
        clientSeed: string;
    }[];
};
/**
 * A table round's client seed from its seats' seeds: the lower-case hex SHA-256 of one line
 * `<seat>:<seed>` + LF per seat that gave a non-empty seed, in seat order; "" when none did.
 */
export declare function tableClientSeed(seatSeeds: readonly {
    seat: number;
    clientSeed: string;
}[]): string;
/**
 * Verify a finished table round from its revealed fairness: the client seed is the one its
 * seats' seeds make, SHA-256(server seed) is the commitment (and the one shown when betting
 * opened, when given), and the dealt cards are the first of the order. Never throws.
 */
export declare function verifyTableRound(fair: TableFairness, shownCommitment?: string): FairCheck;
