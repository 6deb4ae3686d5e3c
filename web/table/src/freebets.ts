// Free bets (docs/freebets.md): the grants the player may still stake, as every answer lists
// them (ListVariants and each round view solo, the player's own snapshot at a shared table). A
// free bet stakes a main bet of exactly its value: no debit, and only the winnings are paid.

import type { FreeBet } from "@rgs/client";

/** The free bets a solo Deal of ``variantId`` may stake (a grant naming no variant is for all). */
export function freeBetsFor(freeBets: readonly FreeBet[], variantId: string): FreeBet[] {
  return freeBets.filter((f) => f.left > 0 && (f.variantIds.length === 0 || f.variantIds.includes(variantId)));
}

/** Fill ``select`` with "no free bet" and one option per free bet (kept when still there);
 * hide ``field`` when there is none. Returns the free bet chosen, if any. */
export function fillFreeBets(select: HTMLSelectElement, field: HTMLElement, freeBets: readonly FreeBet[],
                             money: (amount: bigint) => string): FreeBet | undefined {
  const chosen = select.value;
  select.replaceChildren(new Option("No free bet: my own money", ""), ...freeBets.map((f) =>
    new Option(`Free bet of ${money(f.value)} (${f.left} left)`, f.grantId)));
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
  return "Free bets left: " + left.map((f) => `${f.left} × ${money(f.value)}`).join(", ");
}
