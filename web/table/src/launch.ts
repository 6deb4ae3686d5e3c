// Following a launch (docs/operators.md, "Launching"): the operator's CreateLaunch URL carries a
// one-time launch code in its fragment (`/#launch=l1.…`, never sent to a server, never in a
// Referer). Before the app renders, the page takes it out of the address bar, exchanges it for
// its session once (RedeemLaunch) and keeps what the launch said in sessionStorage for reloads:
// the language (set on <html lang>, where the words of the page read the active locale), the
// lobby and cashier links (top window: the page may be in the casino's iframe), the game or
// table to open, demo play. A used, expired or altered code opens a page that says what to do.

import { ConnectError, errorInfo, launchCodeFrom, redeemLaunch, type BlackjackClient } from "@rgs/client";
import { reasonText, t } from "./i18n.js";
import { formatMoney } from "./money.js";

const TOKEN_KEY = "rgs.token";
const LAUNCH_KEY = "rgs.launch";

/** What a launch asked for, as the page keeps it. */
export interface Launched {
  variantId: string;
  tableId: string;
  language: string;
  lobbyUrl: string;
  cashierUrl: string;
  device: string;
  demo: boolean;
}

function saved(): Launched | undefined {
  const raw = sessionStorage.getItem(LAUNCH_KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Launched;
  } catch {
    return undefined;
  }
}

/** Set the launch language on <html> (a reload knows it at once, before any module renders). */
function speak(launched: Launched | undefined): void {
  if (launched?.language) document.documentElement.lang = launched.language;
}
speak(saved());

function link(id: string, text: string, href: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.id = id;
  a.textContent = text;
  a.href = href;
  a.target = "_top"; // the casino's page, not the game's iframe
  a.rel = "noopener";
  a.className = "launch-link";
  return a;
}

function showLinks(launched: Launched): void {
  const bar = document.querySelector("header.bar");
  if (!bar || document.getElementById("launch-links")) return;
  const nav = document.createElement("nav");
  nav.id = "launch-links";
  nav.setAttribute("aria-label", t("launch.casino"));
  if (launched.lobbyUrl) nav.append(link("lobby-link", t("launch.lobby"), launched.lobbyUrl));
  if (launched.cashierUrl) nav.append(link("deposit-link", t("launch.deposit"), launched.cashierUrl));
  if (nav.childElementCount) bar.append(nav);
  document.body.dataset.device = launched.device;
}

function showRefusal(error: unknown): void {
  const reason = errorInfo(error)?.reason ?? "";
  const section = document.createElement("section");
  section.id = "launch-refused";
  section.className = "panel launch-refused";
  section.setAttribute("role", "alert");
  section.dataset.reason = reason;
  const title = document.createElement("h2");
  title.textContent = t("launch.refused");
  const what = document.createElement("p");
  // The reason's sentence says what to do (go back to the casino and open the game again).
  what.textContent = reasonText(reason)
    ?? `${ConnectError.from(error).rawMessage} ${t("launch.again")}`;
  section.append(title, what);
  document.querySelector("main")?.prepend(section);
}

/**
 * Follow the launch in the URL, if any: before the app starts. Returns the launch (this one or,
 * on a reload, the one kept), undefined without one, or "refused" when the code does not open
 * (its page is shown; the app must not start).
 */
export async function followLaunch(): Promise<Launched | undefined | "refused"> {
  const code = launchCodeFrom(window.location.href);
  if (!code) {
    const kept = saved();
    if (kept) showLinks(kept);
    return kept;
  }
  history.replaceState(null, "", window.location.pathname); // the code leaves the address bar
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(LAUNCH_KEY);
  try {
    const got = await redeemLaunch({ baseUrl: window.location.origin }, code);
    const launched: Launched = {
      variantId: got.variantId,
      tableId: got.tableId,
      language: got.language,
      lobbyUrl: got.lobbyUrl,
      cashierUrl: got.cashierUrl,
      device: got.device,
      demo: got.demo,
    };
    sessionStorage.setItem(TOKEN_KEY, got.sessionToken);
    sessionStorage.setItem(LAUNCH_KEY, JSON.stringify(launched));
    speak(launched);
    showLinks(launched);
    return launched;
  } catch (error) {
    showRefusal(error);
    return "refused";
  }
}

async function appeared<T extends Element>(selector: string, timeoutMs = 10000): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = document.querySelector<T>(selector);
    if (found || Date.now() > until) return found ?? undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Open what the launch named: its variant chosen, or its table's page with the player seated. */
export async function openLaunched(launched: Launched | undefined): Promise<void> {
  if (!launched) return;
  if (launched.variantId) {
    const select = document.getElementById("variant") as HTMLSelectElement | null;
    if (select && [...select.options].some((o) => o.value === launched.variantId)) {
      select.value = launched.variantId;
      select.dispatchEvent(new Event("change"));
    }
    return;
  }
  if (!launched.tableId) return;
  const watch = await appeared<HTMLButtonElement>(`#table-list button[data-table="${CSS.escape(launched.tableId)}"]`);
  if (!watch) return;
  watch.click();
  document.getElementById("bets")?.setAttribute("hidden", "");
  const seat = await appeared<HTMLButtonElement>("#table-seats li button:not([disabled])");
  seat?.click();
}

/** Mark the page as demo play (a visible DEMO badge) with a top-up of the virtual balance. */
export function showDemo(client: BlackjackClient, currency: string): void {
  if (document.getElementById("demo-badge")) return;
  document.body.dataset.demo = "true";
  const bar = document.querySelector("header.bar");
  const badge = document.createElement("strong");
  badge.id = "demo-badge";
  badge.className = "demo-badge";
  badge.textContent = t("launch.demo");
  badge.title = t("launch.demo_title");
  const topUp = document.createElement("button");
  topUp.type = "button";
  topUp.id = "demo-top-up";
  topUp.textContent = t("launch.top_up");
  topUp.addEventListener("click", () => {
    void client.topUpDemoBalance({}).then((got) => {
      const out = document.getElementById("balance");
      if (out) out.textContent = formatMoney(got.balance, currency);
    });
  });
  bar?.querySelector("h1")?.after(badge);
  bar?.append(topUp);
}
