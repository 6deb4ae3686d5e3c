// The words a player reads for the round's decisions, hands and side bets, solo and at a
// shared table alike, in the page's language (i18n.ts): `ACTION_LABELS[Action.HIT]` is the
// catalogue's `action.HIT`, looked up at each read.

import { Action, HandStatus, Outcome, SideBetKind } from "@rgs/client";
import { word } from "./i18n.js";

/** A read-only map from an enum's values to the catalogue's words `<prefix>.<NAME>`. */
function words(prefix: string, names: Record<number, string>): Record<number, string> {
  return new Proxy({} as Record<number, string>, {
    get: (_target, key) => {
      const name = typeof key === "string" ? names[Number(key)] : undefined;
      return name === undefined ? undefined : word(`${prefix}.${name}`);
    },
  });
}

export const ACTION_LABELS = words("action", Action);
export const SIDE_BET_NAMES = words("sidebet", SideBetKind);
export const OUTCOME_WORDS = words("outcome", Outcome);
export const HAND_WORDS = words("hand", HandStatus);

/** A side bet's paytable line (`suited_trips`) in words. */
export function lineWords(line: string): string {
  return word(`line.${line}`) ?? line.replace(/_/g, " ");
}
