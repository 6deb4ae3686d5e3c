// A table's events as a player would say them ("Seat 2 doubled (+€10.00)", "You bet €10.00 on
// seat 3"), in the page's language, for the history under the table. Whose event it is comes
// from the server (`TablePlayer.you`): the page never compares ids; a line said to the player
// is the catalogue's `<key>_you`, about another `<key>_other`.

import { Action, Outcome, SideBetKind, table } from "@rgs/client";
import { formatMoney } from "./money.js";
import { t, word, type WebKey } from "./i18n.js";
import { SIDE_BET_NAMES, lineWords } from "./words.js";

type TablePlayer = table.TablePlayer;
type Values = Record<string, string | number>;

/** A line said to the player (`<key>_you`) or about another (`<key>_other`, `{who}` filled). */
const said = (key: string, p: TablePlayer | undefined, values: Values): string =>
  t(`${key}_${p?.you ? "you" : "other"}` as WebKey, { who: p?.displayName || t("event.someone"), ...values });
const named = (prefix: string, names: Record<number, string>, value: number, fallback: string): string =>
  word(`${prefix}.${names[value]}`) ?? t(`${prefix}.${fallback}` as WebKey);
const SEAT_RELEASES: Partial<Record<table.SeatRelease, string>> = {
  [table.SeatRelease.SAT_OUT]: "SAT_OUT", [table.SeatRelease.AWAY]: "AWAY",
  [table.SeatRelease.SESSION_EXPIRED]: "SESSION_EXPIRED",
};

/** A history line: its text and whether it is about the player. */
export interface Line {
  text: string;
  mine: boolean;
}

const hand = (seat: number, index: number): string =>
  index === 0 ? t("shared.seat", { n: seat }) : t("shared.seat_hand", { n: seat, h: index + 1 });

/** The line for an event worth a line (undefined for the others). ``hole``: the dealer's hole
 * card is the one turned over next (so "The dealer turns over 7♠" reads as such). */
export function historyLine(ev: table.TableEvent, currency: string): Line | undefined {
  const m = (minor: bigint) => formatMoney(minor, currency);
  const e = ev.event;
  switch (e.case) {
    case "seatTaken":
      return { text: said("event.seat_taken", e.value.player, { seat: e.value.seat }), mine: !!e.value.player?.you };
    case "seatLeft": {
      const v = e.value;
      const yours = !!v.player?.you;
      const why = SEAT_RELEASES[v.reason];
      return { text: why
        ? said("event.seat_released", v.player, { seat: v.seat, why: t(`release.${why}_${yours ? "you" : "other"}` as WebKey) })
        : said("event.seat_left", v.player, { seat: v.seat }), mine: yours };
    }
    case "bettingOpened":
      return { text: t("event.betting_opened", { round: String(e.value.roundNo) }), mine: false };
    case "betPlaced": {
      const v = e.value;
      const sides = ([[v.perfectPairs, SideBetKind.PERFECT_PAIRS], [v.twentyOnePlusThree, SideBetKind.TWENTY_ONE_PLUS_THREE],
        [v.twentyPlus, SideBetKind.TWENTY_PLUS]] as const)
        .filter(([a]) => a > 0n).map(([a, k]) => `${SIDE_BET_NAMES[k]} ${m(a)}`);
      return { text: said("event.bet_placed", v.player, { stake: m(v.stake), seat: v.seat,
        sides: sides.length ? ` (+ ${sides.join(", ")})` : "" }), mine: !!v.player?.you };
    }
    case "behindPlaced":
      return { text: said("event.behind_placed", e.value.player, { stake: m(e.value.stake), seat: e.value.seat }), mine: !!e.value.player?.you };
    case "dealNow":
      return { text: said("event.deal_now", e.value.player, { seat: e.value.seat }), mine: !!e.value.player?.you };
    case "bettingClosed":
      return { text: e.value.seats.length ? t("event.betting_closed", { seats: e.value.seats.join(", ") }) : t("event.betting_closed_none"), mine: false };
    case "behindRefunded":
      return { text: said("event.behind_refunded", e.value.player, { seat: e.value.seat, amount: m(e.value.amount),
        why: t(e.value.reason === "seat_released" ? "refund.seat_released" : "refund.sat_out") }), mine: !!e.value.player?.you };
    case "playerActed": {
      const v = e.value;
      const cost = v.stakeAdded > 0n ? ` (+${m(v.stakeAdded)})` : "";
      return { text: t("event.acted", { hand: hand(v.seat, v.hand), action: named("acted", Action, v.action, "fallback"), cost }), mine: false };
    }
    case "decisionTimedOut":
      return { text: t("event.timed_out", { seat: e.value.seat, action: named("acted", Action, e.value.action, "STAND") }), mine: false };
    case "insuranceDecided":
      return { text: said(e.value.take ? "event.insurance_take" : "event.insurance_decline", e.value.player,
        { seat: e.value.seat, behind: e.value.behind ? t("event.behind_suffix") : "" }), mine: !!e.value.player?.you };
    case "behindStakeAdded":
      return { text: said("event.follows", e.value.player, { seat: e.value.seat, amount: m(e.value.amount) }), mine: !!e.value.player?.you };
    case "behindFollowSkipped":
      return { text: said("event.follow_skipped", e.value.player, { seat: e.value.seat }), mine: !!e.value.player?.you };
    case "holeCardRevealed":
      return { text: t("event.hole", { card: e.value.card }), mine: false };
    case "handSettled": {
      const v = e.value;
      return { text: t("event.hand_settled", { hand: hand(v.seat, v.hand), outcome: named("settled", Outcome, v.outcome, "fallback"), paid: m(v.payout) }), mine: false };
    }
    case "sideBetSettled": {
      const v = e.value;
      const name = SIDE_BET_NAMES[v.kind] ?? t("side.bet");
      return { text: v.payout > 0n ? t("event.side_paid", { seat: v.seat, name, line: lineWords(v.line), paid: m(v.payout) })
        : t("event.side_lost", { seat: v.seat, name }), mine: false };
    }
    case "roundVoided":
      return { text: t("event.voided"), mine: false };
    case "roundFinished": {
      const mineRow = e.value.results.find((r) => r.player?.you);
      if (!mineRow) return { text: t("event.over"), mine: false };
      const net = mineRow.paid - mineRow.staked;
      const money = { staked: m(mineRow.staked), paid: m(mineRow.paid) };
      return { text: net > 0n ? t("event.over_won", { amount: m(net), ...money })
        : net < 0n ? t("event.over_lost", { amount: m(-net), ...money }) : t("event.over_even", money), mine: true };
    }
    default:
      return undefined;
  }
}
