import { type FairCheck } from "./fair.js";
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
        hands: readonly {
            cards: readonly string[];
            doubled: boolean;
        }[];
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
/** The dealing of ``order`` that explains every card ``view`` shows, or the deepest miss. */
export declare function dealtFromView(view: RoundViewLike, order: readonly string[], holeCard: boolean): Dealing | {
    miss: Miss;
};
/** Verify a finished round from its view: SHA-256(server seed) is the commitment (and the one
 * shown before the bet, when given), and the cards shown are the ones the order deals. */
export declare function verifyView(view: RoundViewLike, options: ViewCheckOptions): FairCheck;
