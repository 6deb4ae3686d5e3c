// A table's events as a player would say them ("Seat 2 doubled: +10.00 EUR", "You bet 10.00
// EUR on seat 3"), for the history under the table. Whose event it is comes from the server
// (`TablePlayer.you`): the page never compares ids.

import { Action, Outcome, SideBetKind, table } from "@rgs/client";
import { formatMoney } from "./money.js";

type TablePlayer = table.TablePlayer;

const ACTIONS: Partial<Record<Action, string>> = {
  [Action.HIT]: "hit", [Action.STAND]: "stood", [Action.DOUBLE]: "doubled",
  [Action.SPLIT]: "split", [Action.SURRENDER]: "surrendered", [Action.CASH_OUT]: "cashed out",
  [Action.POWER_SPLIT]: "power split", [Action.POWER_DOUBLE]: "power doubled",
  [Action.POWER_KEEP]: "kept the card", [Action.POWER_REPLACE]: "replaced the card",
  [Action.INSURE]: "took insurance", [Action.DECLINE_INSURANCE]: "declined insurance",
};
const OUTCOMES: Partial<Record<Outcome, string>> = {
  [Outcome.BLACKJACK]: "blackjack", [Outcome.WIN]: "won", [Outcome.PUSH]: "pushed",
  [Outcome.LOSE]: "lost", [Outcome.BUST]: "bust", [Outcome.SURRENDER]: "surrendered",
  [Outcome.CASHED_OUT]: "cashed out", [Outcome.CHARLIE]: "won with a Charlie",
  [Outcome.VOID]: "void",
};
const SIDES: Partial<Record<SideBetKind, string>> = {
  [SideBetKind.PERFECT_PAIRS]: "Perfect Pairs", [SideBetKind.TWENTY_ONE_PLUS_THREE]: "21+3",
  [SideBetKind.TWENTY_PLUS]: "20+",
};

/** Why a seat was given back, said to its player (true) or to the others. */
const RELEASES: Partial<Record<table.SeatRelease, (yours: boolean) => string>> = {
  [table.SeatRelease.SAT_OUT]: (y) => `${y ? "you" : "its player"} sat out too many rounds in a row`,
  [table.SeatRelease.AWAY]: (y) => `${y ? "you were" : "its player was"} away from the table`,
  [table.SeatRelease.SESSION_EXPIRED]: (y) => `${y ? "your" : "its player's"} session ended`,
};

/** A history line: its text and whether it is about the player. */
export interface Line {
  text: string;
  mine: boolean;
}

const who = (p?: TablePlayer): string => (p?.you ? "You" : p?.displayName ?? "Someone");
const verb = (p: TablePlayer | undefined, you: string, them: string): string =>
  p?.you ? you : them;
const hand = (seat: number, index: number): string =>
  index === 0 ? `Seat ${seat}` : `Seat ${seat} hand ${index + 1}`;

/** The line for an event worth a line (undefined for the others). ``hole``: the dealer's hole
 * card is the one turned over next (so "The dealer turns over 7♠" reads as such). */
export function historyLine(ev: table.TableEvent, currency: string): Line | undefined {
  const m = (minor: bigint) => formatMoney(minor, currency);
  const e = ev.event;
  switch (e.case) {
    case "seatTaken":
      return { text: `${who(e.value.player)} ${verb(e.value.player, "took", "took")} seat ${e.value.seat}`, mine: !!e.value.player?.you };
    case "seatLeft": {
      const v = e.value;
      const yours = !!v.player?.you;
      const why = RELEASES[v.reason];
      return { text: why
        ? `${yours ? "Your" : `${who(v.player)}'s`} seat ${v.seat} is given back: ${why(yours)}`
        : `${who(v.player)} left seat ${v.seat}`, mine: yours };
    }
    case "bettingOpened":
      return { text: `Betting is open for round ${e.value.roundNo}`, mine: false };
    case "betPlaced": {
      const v = e.value;
      const sides = ([[v.perfectPairs, "Perfect Pairs"], [v.twentyOnePlusThree, "21+3"], [v.twentyPlus, "20+"]] as const)
        .filter(([a]) => a > 0n).map(([a, n]) => `${n} ${m(a)}`);
      return { text: `${who(v.player)} ${verb(v.player, "bet", "bets")} ${m(v.stake)} on seat ${v.seat}`
        + (sides.length ? ` (+ ${sides.join(", ")})` : ""), mine: !!v.player?.you };
    }
    case "behindPlaced":
      return { text: `${who(e.value.player)} ${verb(e.value.player, "bet", "bets")} ${m(e.value.stake)} behind seat ${e.value.seat}`, mine: !!e.value.player?.you };
    case "dealNow":
      return { text: `${who(e.value.player)} ${verb(e.value.player, "are", "is")} ready (seat ${e.value.seat})`, mine: !!e.value.player?.you };
    case "bettingClosed":
      return { text: e.value.seats.length ? `Betting closed: seats ${e.value.seats.join(", ")} are dealt in` : "Betting closed: nobody bet", mine: false };
    case "behindRefunded":
      return { text: `${e.value.player?.you ? "Your" : `${who(e.value.player)}'s`} Bet Behind on seat ${e.value.seat} is returned (${m(e.value.amount)}): `
        + (e.value.reason === "seat_released" ? "the seat was given back" : "the seat sat out"), mine: !!e.value.player?.you };
    case "playerActed": {
      const v = e.value;
      const cost = v.stakeAdded > 0n ? ` (+${m(v.stakeAdded)})` : "";
      return { text: `${hand(v.seat, v.hand)} ${ACTIONS[v.action] ?? "acted"}${cost}`, mine: false };
    }
    case "decisionTimedOut":
      return { text: `Seat ${e.value.seat} ran out of time: ${ACTIONS[e.value.action] ?? "stood"}`, mine: false };
    case "insuranceDecided":
      return { text: `${who(e.value.player)} ${e.value.take ? verb(e.value.player, "take", "takes") : verb(e.value.player, "decline", "declines")} insurance on seat ${e.value.seat}${e.value.behind ? " (Bet Behind)" : ""}`, mine: !!e.value.player?.you };
    case "behindStakeAdded":
      return { text: `${who(e.value.player)} ${verb(e.value.player, "follow", "follows")} behind seat ${e.value.seat}: +${m(e.value.amount)}`, mine: !!e.value.player?.you };
    case "behindFollowSkipped":
      return { text: `${who(e.value.player)} behind seat ${e.value.seat} did not follow`, mine: !!e.value.player?.you };
    case "holeCardRevealed":
      return { text: `The dealer turns over the hole card: ${e.value.card}`, mine: false };
    case "handSettled": {
      const v = e.value;
      return { text: `${hand(v.seat, v.hand)} ${OUTCOMES[v.outcome] ?? "settled"}: paid ${m(v.payout)}`, mine: false };
    }
    case "sideBetSettled": {
      const v = e.value;
      const name = SIDES[v.kind] ?? "side bet";
      return { text: `Seat ${v.seat} ${name}: ${v.payout > 0n ? `${v.line.replace(/_/g, " ")}, paid ${m(v.payout)}` : "lost"}`, mine: false };
    }
    case "roundVoided":
      return { text: "The round is void: every stake is returned", mine: false };
    case "roundFinished": {
      const mineRow = e.value.results.find((r) => r.player?.you);
      if (!mineRow) return { text: "The round is over", mine: false };
      const net = mineRow.paid - mineRow.staked;
      return { text: `The round is over: you ${net > 0n ? `won ${m(net)}` : net < 0n ? `lost ${m(-net)}` : "broke even"} (staked ${m(mineRow.staked)}, paid ${m(mineRow.paid)})`, mine: true };
    }
    default:
      return undefined;
  }
}
