// Errors in words: what happened and what the player can do, from the ErrorInfo reason.

import { Code, ConnectError, errorInfo, waitLeftMs } from "@rgs/client";

const REASONS: Record<string, string> = {
  INSUFFICIENT_FUNDS: "Your balance is too low for this bet. Lower the bet or add funds.",
  STAKE_OUT_OF_LIMITS: "That bet is outside the table limits shown under the bet.",
  ACTION_NOT_ALLOWED: "That decision is not open now. The table shows the choices you have.",
  STALE_SEQ: "The round moved on elsewhere (another tab?). The table now shows it as it is.",
  ROUND_IN_PROGRESS: "You have a round in progress: finish it first.",
  ROUND_FINISHED: "This round is already finished.",
  ROUND_NOT_FOUND: "That round could not be found.",
  SESSION_EXPIRED: "Your session has expired. Return to the casino and open the game again.",
  INVALID_SESSION_TOKEN: "This session is not valid. Return to the casino and open the game again.",
  MISSING_CREDENTIALS: "No session: open the game from the casino.",
  ORIGIN_NOT_ALLOWED: "This page may not play for this casino. Open the game from the casino's site.",
  WALLET_UNAVAILABLE: "The casino's wallet is not answering. Nothing was charged; try again in a moment.",
  UNKNOWN_VARIANT: "This game is not available here.",
  FORCED_CARDS_NOT_ALLOWED: "Forced cards are only accepted by a sandbox in test mode.",
  SERVER_SHUTTING_DOWN: "The server is restarting. Try again: nothing is done twice.",
  REQUEST_IN_PROGRESS: "Your last request is still being handled. Try again in a moment.",
  PLAYER_BUSY: "Another of your requests (another tab?) is still being handled. Try again in a moment.",
  TABLE_BUSY: "The table is very busy: your request was not taken and any stake is back. Try again.",
  ANOTHER_GAME_IN_PROGRESS: "You have a round open in another game: finish it first (one game at a time).",
  STAKE_ABOVE_MARKET_LIMIT: "That bet is above the largest stake allowed for a round here.",
  PLAYER_LIMIT_REACHED: "You have reached a limit you set with the casino. Nothing was charged.",
  PLAYER_EXCLUDED: "Your account is excluded from play. Nothing was charged.",
  PLAYER_BLOCKED: "Your account may not play now. Contact the casino. Nothing was charged.",
  REALITY_CHECK_DUE: "Time for a reality check: see your session's time and position, then choose to go on.",
};

type Format = (minor: bigint, currency: string) => string;

/** A sentence for the player about ``error``. */
export function describeError(error: unknown, _format: Format, _currency: string): string {
  if (!(error instanceof ConnectError) && error instanceof Error && !("code" in error)) {
    return error.message;
  }
  const err = ConnectError.from(error);
  const info = errorInfo(err);
  const reason = info?.reason;
  const wait = waitLeftMs(info);
  if (wait > 0) return `The next round can start in ${Math.ceil(wait / 1000)} s: deal again then.`;
  if (reason && REASONS[reason]) return REASONS[reason];
  if (err.code === Code.Unavailable || err.code === Code.Unknown && !reason) {
    return "The game server cannot be reached. Check your connection and try again.";
  }
  // The server's own message is written for people too (it names the field and the limits).
  return `The game refused this: ${err.rawMessage}`;
}
