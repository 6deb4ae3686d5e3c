// What the brand's jurisdiction profile asks of the table page (docs/jurisdictions.md): the
// session's time and net position in view whenever the server sends it (RTS 13C / 2E), a
// celebration only for a win above the stake (RTS 14C: the server's result class decides, not
// the page), and the reality check: shown when the server refuses a round for it, acknowledged
// only by the player.

import {
  ResultClass,
  celebrates,
  errorInfo,
  elapsedText,
  type BlackjackClient,
  type SessionPosition,
} from "@rgs/client";
import { formatMoney } from "./money.js";
import { t, tn } from "./i18n.js";

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

let currency = "";
let client: BlackjackClient | undefined;

/** The session's currency and client, once known. */
export function setMarket(c: BlackjackClient, cur: string): void {
  client = c;
  currency = cur;
}

/** Show the session's position (kept when a view carries none: a brand without the rule
 * never sends one, so the line stays hidden). */
export function renderPosition(p: SessionPosition | undefined): void {
  if (!p) return;
  const line = el("session-position");
  const net = p.netPosition;
  const sign = net > 0n ? "+" : net < 0n ? "−" : "";
  line.textContent = t("position", {
    elapsed: elapsedText(p.elapsedS), staked: formatMoney(p.totalStaked, currency),
    paid: formatMoney(p.totalPaid, currency), net: sign + formatMoney(net < 0n ? -net : net, currency),
  });
  line.dataset.net = String(p.netPosition);
  line.hidden = false;
}

/** Mark a settled round's result line: celebrated only for a win above the stake. */
export function markResult(line: HTMLElement, result: ResultClass | undefined): void {
  const settled = result !== undefined && result !== ResultClass.UNSPECIFIED;
  line.classList.toggle("celebrate", settled && celebrates({ result }));
  if (settled) line.dataset.result = ResultClass[result].toLowerCase();
  else delete line.dataset.result;
}

/** When ``error`` is a reality check due, show it and return true: the player reads the
 * session's time and position, then chooses to go on (recorded by the server) or stop. */
export function offerRealityCheck(error: unknown): boolean {
  const info = errorInfo(error);
  if (info?.reason !== "REALITY_CHECK_DUE") return false;
  const seconds = Number(info.metadata["elapsed_s"] ?? "0");
  const minutes = Math.floor(seconds / 60);
  el("reality-check-text").textContent =
    `${tn("reality.text", minutes)} ${el("session-position").textContent ?? ""}`.trim();
  el("reality-check").hidden = false;
  el<HTMLButtonElement>("reality-check-continue").focus();
  return true;
}

async function acknowledge(): Promise<void> {
  if (!client) return;
  const answer = await client.acknowledgeRealityCheck({}).catch(() => undefined);
  if (!answer) return;
  renderPosition(answer.session);
  el("reality-check").hidden = true;
}

/** Wire the reality check's buttons (once, at start). */
export function initMarket(): void {
  el<HTMLButtonElement>("reality-check-continue").addEventListener("click", () => void acknowledge());
  el<HTMLButtonElement>("reality-check-stop").addEventListener("click", () => {
    el("reality-check").hidden = true;
    sessionStorage.removeItem("rgs.token");
    el("bets").hidden = true;
    el("error").textContent = t("reality.stopped");
    el("error").hidden = false;
  });
}
