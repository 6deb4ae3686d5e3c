// The look of a decision when the player's brand turns hints on, solo and at a shared table
// alike: its exact expected value in main bets after the label (" · EV +0.123"), the best one
// starred and named so to screen readers.

import { t } from "./i18n.js";

/** Label ``b`` for a decision; with ``expectedValue`` (hints on) the value is shown and, when
 * ``best``, the button is starred (class "best", aria-label "…, the best decision"). */
export function labelDecision(b: HTMLButtonElement, label: string,
                              expectedValue: number | undefined, best: boolean): void {
  let text = label;
  if (expectedValue !== undefined) {
    text += ` · EV ${expectedValue >= 0 ? "+" : ""}${expectedValue.toFixed(3)}`;
    b.dataset.ev = expectedValue.toFixed(6);
  }
  if (best) {
    b.classList.add("best");
    b.dataset.best = "true";
    b.setAttribute("aria-label", t("table.best", { label: text }));
    text = `★ ${text}`;
  }
  b.textContent = text;
}
