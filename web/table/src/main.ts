// The reference web table: a player picks a variant, bets, and plays a round, with nothing but
// @rgs/client. Small and plain on purpose (no framework): it is also the studios' worked example.
//
// The session token comes in the page's fragment (`/#token=...`, never sent to any server), is
// kept in sessionStorage for reloads and removed from the address bar. In the sandbox (test
// mode) `&cards=TS,7H,...` forces the next round's cards.

import { followLaunch, openLaunched, showDemo } from "./launch.js"; // first: <html lang> before the rest
import {
  Action,
  Code,
  ConnectError,
  ResultClass,
  RoundStatus,
  SideBetKind,
  createBlackjackClient,
  errorInfo,
  isRetryable,
  newRequestId,
  type AllowedAction,
  type BlackjackClient,
  type BoxBet,
  type LastRound,
  type RoundView,
  type Variant,
} from "@rgs/client";
import { describeError } from "./errors.js";
import { initMarket, markResult, offerRealityCheck, renderPosition, setMarket } from "./market.js";
import { ACTION_LABELS, HAND_WORDS, OUTCOME_WORDS, SIDE_BET_NAMES } from "./words.js";
import { cardElement, hiddenCard } from "./cards.js";
import { labelDecision } from "./hints.js";
import { formatMoney, parseMoney } from "./money.js";
import { startTables } from "./tables.js";
import {
  commitmentAtBet,
  readClientSeed,
  rememberShown,
  renderFairness,
  showNextCommitment,
  verifyShown,
} from "./fair.js";

const SEAT = 1;

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

interface State {
  client: BlackjackClient;
  currency: string;
  variants: Variant[];
  round?: RoundView;
  forcedCards: string[];
  busy: boolean;
}

let state: State | undefined;

const words = (line: string): string => line.replace(/_/g, " ");

function money(amount: bigint): string {
  return formatMoney(amount, state?.currency ?? "");
}

function showError(error: unknown): void {
  if (offerRealityCheck(error)) return;
  const box = el<HTMLParagraphElement>("error");
  box.textContent = describeError(error, formatMoney, state?.currency ?? "");
  box.hidden = false;
}

function clearError(): void {
  const box = el<HTMLParagraphElement>("error");
  box.hidden = true;
  box.textContent = "";
}

/** Run a call with the controls disabled; retry once with the same request when retryable. */
async function busy<T>(work: () => Promise<T>): Promise<T | undefined> {
  if (!state || state.busy) return undefined;
  state.busy = true;
  document.body.setAttribute("aria-busy", "true");
  setControlsDisabled(true);
  clearError();
  try {
    try {
      return await work();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      return await work(); // same request ids: never executed twice
    }
  } catch (error) {
    showError(error);
    return undefined;
  } finally {
    state.busy = false;
    document.body.removeAttribute("aria-busy");
    setControlsDisabled(false);
  }
}

function setControlsDisabled(disabled: boolean): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>("button")) b.disabled = disabled;
}

function setBalance(balance: bigint | undefined): void {
  el("balance").textContent = balance === undefined ? "unavailable" : money(balance);
}

function selectedVariant(): Variant | undefined {
  const id = el<HTMLSelectElement>("variant").value;
  return state?.variants.find((v) => v.id === id);
}

function renderVariantForm(): void {
  const v = selectedVariant();
  if (!v || !state) return;
  const limits = v.limits;
  const rules: string[] = [
    `${v.decks} deck${v.decks === 1 ? "" : "s"}`,
    v.dealerHitsSoft17 ? "dealer hits soft 17" : "dealer stands on soft 17",
    `blackjack pays ${v.blackjackPaysNumerator}:${v.blackjackPaysDenominator}`,
  ];
  if (v.lateSurrender) rules.push("late surrender");
  if (v.cashOut) rules.push("Cash Out");
  el("variant-rules").textContent = rules.join(" · ");
  const stake = el<HTMLInputElement>("stake");
  if (limits) {
    if (!stake.value || stake.dataset.variant !== v.id) stake.value = formatMoney(limits.mainMin, "", false);
    el("stake-limits").textContent = `from ${money(limits.mainMin)} to ${money(limits.mainMax)}`;
  }
  stake.dataset.variant = v.id;
  const sides = el("side-bets");
  sides.replaceChildren();
  for (const table of v.sideBets) {
    const name = SIDE_BET_NAMES[table.kind] ?? "Side bet";
    const id = `side-${table.kind}`;
    const field = document.createElement("div");
    field.className = "field";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = `${name} side bet (${state.currency})`;
    const input = document.createElement("input");
    input.id = id;
    input.inputMode = "decimal";
    input.autocomplete = "off";
    input.placeholder = "0.00";
    input.dataset.kind = String(table.kind);
    const hint = document.createElement("small");
    if (limits) hint.textContent = `${money(limits.sideMin)} to ${money(limits.sideMax)}, or empty`;
    field.append(label, input, hint);
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = `${name} paytable`;
    const paytable = document.createElement("table");
    paytable.className = "paytable";
    for (const line of table.lines) {
      const row = paytable.insertRow();
      row.insertCell().textContent = words(line.line);
      row.insertCell().textContent = `${line.pays} to 1`;
    }
    details.append(summary, paytable);
    sides.append(field, details);
  }
}

function readBets(): BoxBet | undefined {
  const v = selectedVariant();
  if (!v) return undefined;
  const stake = parseMoney(el<HTMLInputElement>("stake").value);
  if (stake === undefined || stake <= 0n) {
    showError(new Error("Enter the main bet as an amount, e.g. 10.00"));
    return undefined;
  }
  const bet: BoxBet = {
    $typeName: "rgs.blackjack.v1.BoxBet", seat: SEAT, stake, twentyPlus: 0n, perfectPairs: 0n,
    twentyOnePlusThree: 0n, insuranceOffer: 0, safetyNet: false,
  };
  for (const input of el("side-bets").querySelectorAll<HTMLInputElement>("input")) {
    if (!input.value.trim()) continue;
    const amount = parseMoney(input.value);
    if (amount === undefined) {
      showError(new Error(`Enter the ${SIDE_BET_NAMES[Number(input.dataset.kind)]} side bet as an amount, e.g. 1.00, or leave it empty`));
      return undefined;
    }
    const kind = Number(input.dataset.kind);
    if (kind === SideBetKind.TWENTY_PLUS) bet.twentyPlus = amount;
    if (kind === SideBetKind.PERFECT_PAIRS) bet.perfectPairs = amount;
    if (kind === SideBetKind.TWENTY_ONE_PLUS_THREE) bet.twentyOnePlusThree = amount;
  }
  return bet;
}

async function deal(): Promise<void> {
  const s = state;
  const v = selectedVariant();
  const bet = readBets();
  if (!s || !v || !bet) return;
  const clientSeed = readClientSeed();
  if (clientSeed instanceof Error) {
    showError(clientSeed);
    return;
  }
  const requestId = newRequestId();
  const forcedCards = s.forcedCards;
  const shown = commitmentAtBet();
  const response = await busy(() => s.client.deal({ requestId, variantId: v.id, boxes: [bet], forcedCards, clientSeed }));
  if (!response?.round) return;
  s.forcedCards = [];
  rememberShown(response.round.roundId, shown); // Verify checks the round's commitment is it
  show(response.round);
}

async function act(seat: number, hand: number, action: Action): Promise<void> {
  const s = state;
  const round = s?.round;
  if (!s || !round) return;
  const requestId = newRequestId();
  const response = await busy(() => s.client.act({
    requestId, roundId: round.roundId, expectedSeq: round.seq, seat, hand, action,
  }));
  if (response?.round) {
    show(response.round);
    return;
  }
  // A refused decision (e.g. another tab moved the round on): show the round as it is now.
  const again = await s.client.getRound({ roundId: round.roundId }).catch(() => undefined);
  if (again?.round) show(again.round, false);
}

function actionButton(a: AllowedAction, seat: number, hand: number): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  let label = ACTION_LABELS[a.action] ?? "Act";
  if (a.offer > 0n) label += ` (receive ${money(a.offer)}${a.fairValue > 0n ? `, fair value ${money(a.fairValue)}` : ""})`;
  else if (a.cost > 0n) label += ` (+${money(a.cost)})`;
  // Brands with hints on: the decision's exact expected value in main bets; the best marked.
  labelDecision(b, label, a.expectedValue, a.best);
  b.dataset.action = Action[a.action];
  if (a.warning) b.title = a.warning;
  b.addEventListener("click", () => {
    if (a.warning && !window.confirm(a.warning)) return;
    void act(seat, hand, a.action);
  });
  return b;
}

function show(round: RoundView, focus = true): void {
  if (!state) return;
  state.round = round;
  el("table").hidden = false;
  setBalance(round.balance);
  renderPosition(round.session);
  const dealer = el("dealer-cards");
  dealer.replaceChildren(...round.dealerCards.map(cardElement));
  if (round.dealerHoleHidden) dealer.append(hiddenCard());
  el("dealer-total").textContent = round.dealerTotal ? `(${round.dealerSoft ? "soft " : ""}${round.dealerTotal})` : "";
  const boxes = el("boxes");
  boxes.replaceChildren();
  const actions = el("actions");
  actions.replaceChildren();
  for (const box of round.boxes) {
    const area = document.createElement("div");
    area.className = "area";
    const title = document.createElement("h3");
    title.textContent = `Your box — bet ${money(box.stake)}`;
    area.append(title);
    box.hands.forEach((hand, index) => {
      const div = document.createElement("div");
      const toAct = round.toAct && round.toAct.seat === box.seat && round.toAct.hand === index
        && round.status === RoundStatus.PLAYER_TURN;
      div.className = `hand${toAct ? " to-act" : ""}`;
      const cards = document.createElement("ul");
      cards.className = "cards";
      cards.setAttribute("aria-label", `Hand ${index + 1} cards`);
      cards.append(...hand.cards.map(cardElement));
      const info = document.createElement("p");
      info.className = "hand-info";
      const parts = [`Hand ${index + 1}: ${hand.soft ? "soft " : ""}${hand.total}`, `stake ${money(hand.stake)}`,
        HAND_WORDS[hand.status] ?? ""];
      if (hand.outcome) parts.push(`${OUTCOME_WORDS[hand.outcome]}, paid ${money(hand.payout)}`);
      info.textContent = parts.filter(Boolean).join(" · ");
      div.append(cards, info);
      area.append(div);
      for (const a of hand.allowed) actions.append(actionButton(a, box.seat, index));
    });
    if (box.insuranceOffered || box.insuranceStake > 0n) {
      const ins = document.createElement("p");
      ins.className = "hand-info";
      ins.textContent = box.insuranceStake > 0n
        ? `Insurance ${money(box.insuranceStake)}${round.status === RoundStatus.SETTLED ? `, paid ${money(box.insurancePayout)}` : ""}`
        : round.status === RoundStatus.INSURANCE ? "The dealer shows an ace: insurance?" : "No insurance";
      area.append(ins);
    }
    for (const a of box.insuranceAllowed) actions.append(actionButton(a, box.seat, 0));
    if (box.sideBets.length) {
      const list = document.createElement("ul");
      list.className = "side-results";
      for (const sb of box.sideBets) {
        const li = document.createElement("li");
        const name = SIDE_BET_NAMES[sb.kind] ?? "Side bet";
        li.textContent = sb.settled
          ? `${name} ${money(sb.stake)}: ${sb.line ? `${words(sb.line)}, paid ${money(sb.payout)}` : "lost"}`
          : `${name} ${money(sb.stake)}: open`;
        list.append(li);
      }
      area.append(list);
    }
    boxes.append(area);
  }
  const hinted = round.boxes.some((b) => b.hands.some((h) => h.allowed.some((a) => a.expectedValue !== undefined)));
  el("hints-note").hidden = !hinted;
  renderFairness(round, state.variants.find((v) => v.id === round.variantId));
  const finished = round.status === RoundStatus.SETTLED || round.status === RoundStatus.VOIDED;
  el("bets").hidden = !finished;
  el("next").hidden = true;
  const result = el("result");
  if (finished) {
    const net = round.totalPaid - round.totalStaked;
    // The server's class of the result decides what is a win (a return is never one).
    const verdict = round.status === RoundStatus.VOIDED ? "Round voided"
      : round.result === ResultClass.WIN ? `You won ${money(net)}`
      : net < 0n ? `You lost ${money(-net)}` : "Your stake is returned";
    markResult(result, round.status === RoundStatus.VOIDED ? undefined : round.result);
    result.textContent = `${verdict} — staked ${money(round.totalStaked)}, paid ${money(round.totalPaid)}.`
      + (round.paymentPending ? " The payment is being completed." : "");
    if (round.paymentPending) void settle(round);
    void refreshHistory();
    if (focus) el<HTMLButtonElement>("deal").focus();
  } else {
    result.textContent = "";
    markResult(result, undefined);
    if (focus) actions.querySelector<HTMLButtonElement>("button")?.focus();
  }
}

async function settle(round: RoundView): Promise<void> {
  const s = state;
  if (!s) return;
  const response = await s.client.settle({ requestId: newRequestId(), roundId: round.roundId }).catch(() => undefined);
  if (response?.round && !response.round.paymentPending) show(response.round, false);
}

function renderHistory(rounds: LastRound[]): void {
  const list = el("last-rounds");
  list.replaceChildren();
  for (const r of rounds) {
    const li = document.createElement("li");
    const name = state?.variants.find((v) => v.id === r.variantId)?.name ?? r.variantId;
    li.textContent = `${name}: staked ${money(r.totalStaked)}, paid ${money(r.totalPaid)}`;
    list.append(li);
  }
  el("history").hidden = rounds.length === 0;
}

async function refreshHistory(): Promise<void> {
  const listed = await state?.client.listVariants({}).catch(() => undefined);
  if (listed) renderHistory(listed.lastRounds);
}

async function start(token: string, forcedCards: string[]): Promise<void> {
  const client = createBlackjackClient({ baseUrl: window.location.origin, sessionToken: token });
  state = { client, currency: "", variants: [], forcedCards, busy: false };
  let listed;
  try {
    listed = await client.listVariants({});
  } catch (error) {
    showError(error);
    if (ConnectError.from(error).code === Code.Unauthenticated) {
      sessionStorage.removeItem("rgs.token");
      el("login").hidden = false;
    }
    return;
  }
  state.currency = listed.currency;
  state.variants = listed.variants;
  setMarket(client, listed.currency);
  for (const c of document.querySelectorAll(".currency")) c.textContent = listed.currency;
  const select = el<HTMLSelectElement>("variant");
  select.replaceChildren(...listed.variants.map((v) => new Option(v.name, v.id)));
  setBalance(listed.balance);
  if (listed.demo) showDemo(client, listed.currency);
  showNextCommitment(listed.nextCommitment);
  renderVariantForm();
  renderHistory(listed.lastRounds);
  el("login").hidden = true;
  el("bets").hidden = false;
  void startTables(token, {
    currency: listed.currency,
    forcedCards,
    refreshBalance: async () => {
      const got = await client.getBalance({}).catch(() => undefined);
      if (got) setBalance(got.balance);
    },
  });
  // Resume: a round left unfinished (closed tab, lost connection) is shown where it stood.
  try {
    const open = await client.getRound({ roundId: "" });
    if (open.round && open.round.status !== RoundStatus.SETTLED && open.round.status !== RoundStatus.VOIDED) {
      select.value = open.round.variantId;
      show(open.round);
    }
  } catch (error) {
    if (errorInfo(error)?.reason !== "ROUND_NOT_FOUND" && ConnectError.from(error).code !== Code.NotFound) showError(error);
  }
}

async function main(): Promise<void> {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const launched = await followLaunch();
  if (launched === "refused") return;
  const fromHash = params.get("token");
  if (fromHash) sessionStorage.setItem("rgs.token", fromHash);
  const forced = (params.get("cards") ?? "").split(",").map((c) => c.trim()).filter(Boolean);
  if (window.location.hash) history.replaceState(null, "", window.location.pathname);
  el<HTMLSelectElement>("variant").addEventListener("change", renderVariantForm);
  initMarket();
  el<HTMLButtonElement>("verify").addEventListener("click", verifyShown);
  el<HTMLFormElement>("bet-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void deal();
  });
  el<HTMLFormElement>("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = el<HTMLInputElement>("token-input").value.trim();
    if (token) {
      sessionStorage.setItem("rgs.token", token);
      void start(token, []);
    }
  });
  const token = sessionStorage.getItem("rgs.token");
  if (!token) {
    el("login").hidden = false;
    return;
  }
  await start(token, forced);
  await openLaunched(launched);
}

void main();
