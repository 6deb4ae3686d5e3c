// What a jurisdiction profile asks of a client (docs/jurisdictions.md): celebrate only a win
// above the stake (UKGC RTS 14C), show the session's time and net position where the round
// view carries it (RTS 13C / 2E), and wait out ROUND_TOO_SOON before the player deals again.

import { ResultClass, type RoundView, type SessionPosition } from "./gen/rgs/blackjack/v1/blackjack_pb.js";

/** Whether a settled round may be celebrated: only a result above its stake. A push, a
 * surrender or a Cash Out below the stake is not a win, whatever it pays back. */
export function celebrates(view: Pick<RoundView, "result">): boolean {
  return view.result === ResultClass.WIN;
}

/** The words for a result class a client may show (never "win" for a return). */
export function resultWords(result: ResultClass): string {
  switch (result) {
    case ResultClass.WIN:
      return "Win";
    case ResultClass.RETURN_EQUAL:
      return "Stake returned";
    case ResultClass.RETURN_BELOW:
      return "Part of the stake returned";
    case ResultClass.LOSS:
      return "Loss";
    default:
      return "";
  }
}

/** `h:mm:ss` of a session's elapsed seconds. */
export function elapsedText(seconds: bigint | number): string {
  const s = Number(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** One line for a session's position, amounts in minor units formatted by `money`. */
export function positionText(p: SessionPosition, money: (minor: bigint) => string): string {
  const net = p.netPosition;
  const sign = net > 0n ? "+" : net < 0n ? "−" : "";
  const abs = net < 0n ? -net : net;
  return `Session ${elapsedText(p.elapsedS)} · staked ${money(p.totalStaked)} · paid ` +
    `${money(p.totalPaid)} · net ${sign}${money(abs)}`;
}

/** The wait left (milliseconds) of a Deal refused ROUND_TOO_SOON, from its ErrorInfo
 * metadata; 0 for any other refusal. The player deals again themself: nothing re-deals. */
export function waitLeftMs(info: { reason: string; metadata: Record<string, string> } | undefined): number {
  if (info === undefined || info.reason !== "ROUND_TOO_SOON") return 0;
  const ms = Number(info.metadata["wait_ms"] ?? "0");
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
