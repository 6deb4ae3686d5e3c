import { ResultClass, type RoundView, type SessionPosition } from "./gen/rgs/blackjack/v1/blackjack_pb.js";
/** Whether a settled round may be celebrated: only a result above its stake. A push, a
 * surrender or a Cash Out below the stake is not a win, whatever it pays back. */
export declare function celebrates(view: Pick<RoundView, "result">): boolean;
/** The words for a result class a client may show (never "win" for a return). */
export declare function resultWords(result: ResultClass): string;
/** `h:mm:ss` of a session's elapsed seconds. */
export declare function elapsedText(seconds: bigint | number): string;
/** One line for a session's position, amounts in minor units formatted by `money`. */
export declare function positionText(p: SessionPosition, money: (minor: bigint) => string): string;
/** The wait left (milliseconds) of a Deal refused ROUND_TOO_SOON, from its ErrorInfo
 * metadata; 0 for any other refusal. The player deals again themself: nothing re-deals. */
export declare function waitLeftMs(info: {
    reason: string;
    metadata: Record<string, string>;
} | undefined): number;
