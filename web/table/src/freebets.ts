// Free bets (docs/freebets.md): the grants the player may still stake, as every answer lists
// them (ListVariants and each round view solo, the player's own snapshot at a shared table). A
// free bet stakes a main bet of exactly its value: no debit, and only the winnings are paid.

import type { FreeBet } from "@rgs/client";
import { t } from "./i18n.js";

/** The free bets a solo Deal of ``variantId`` may stake (a grant naming no variant is for all). */
export function freeBetsFor(freeBets: readonly FreeBet[], variantId: string): FreeBet[] {
  return freeBets.filter((f) => f.left > 0 && (f.variantIds.length === 0 || f.variantIds.includes(variantId)));
}

/** Fill ``select`` with "no free bet" and one option per free bet (kept when still there);
 * hide ``field`` when there is none. Returns the free bet chosen, if any. */
export function fillFreeBets(select: HTMLSelectElement, field: HTMLElement, freeBets: readonly FreeBet[],
                             money: (amount: bigint) => string): FreeBet | undefined {
  const chosen = select.value;
  select.replaceChildren(new Option(t("freebet.none"), ""), ...freeBets.map((f) =>
    new Option(t("freebet.option", { value: money(f.value), left: f.left }), f.grantId)));
  select.value = freeBets.some((f) => f.grantId === chosen) ? chosen : "";
  field.hidden = freeBets.length === 0;
  return chosenFreeBet(select, freeBets);
}

/** The free bet picked in ``select`` (undefined: none). */
export function chosenFreeBet(select: HTMLSelectElement, freeBets: readonly FreeBet[]): FreeBet | undefined {
  return freeBets.find((f) => f.grantId === select.value);
}

/** The "free bets left" line: every free bet the player holds, or empty. */
export function freeBetsLine(freeBets: readonly FreeBet[], money: (amount: bigint) => string): string {
  const left = freeBets.filter((f) => f.left > 0);
  if (left.length === 0) return "";
  return t("freebet.left", { list: left.map((f) => `${f.left} × ${money(f.value)}`).join(", ") });
}
