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
  type FreeBet,
  type LastRound,
  type RoundView,
  type Variant,
} from "@rgs/client";
import { describeError } from "./errors.js";
import { initMarket, markResult, offerRealityCheck, renderPosition, setMarket } from "./market.js";
import { ACTION_LABELS, HAND_WORDS, OUTCOME_WORDS, SIDE_BET_NAMES, lineWords } from "./words.js";
import { followLanguage, t, tn } from "./i18n.js";
import { cardElement, hiddenCard } from "./cards.js";
import { labelDecision } from "./hints.js";
import { formatMoney, parseMoney } from "./money.js";
import { startTables } from "./tables.js";
import { chosenFreeBet, fillFreeBets, freeBetsFor, freeBetsLine } from "./freebets.js";
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
  /** The free bets left, as the last answer listed them. */
  freeBets: FreeBet[];
}

let state: State | undefined;

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
  el("balance").textContent = balance === undefined ? t("balance.unavailable") : money(balance);
}

/** Show the free bets left, and offer those of the chosen variant at Deal. */
function renderFreeBets(freeBets?: FreeBet[]): void {
  if (!state) return;
  if (freeBets) state.freeBets = freeBets;
  const line = el("free-bets-left");
  line.textContent = freeBetsLine(state.freeBets, money);
  line.hidden = !line.textContent;
  const v = selectedVariant();
  fillFreeBets(el<HTMLSelectElement>("free-bet"), el("free-bet-field"),
               v ? freeBetsFor(state.freeBets, v.id) : [], money);
  chooseFreeBet();
}

/** A free bet chosen stakes exactly its value: the main bet shows it and cannot be changed. */
function chooseFreeBet(): void {
  const free = state && chosenFreeBet(el<HTMLSelectElement>("free-bet"), state.freeBets);
  const stake = el<HTMLInputElement>("stake");
  stake.readOnly = free !== undefined;
  if (free) stake.value = formatMoney(free.value, "", false);
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
    tn("rules.decks", v.decks),
    t(v.dealerHitsSoft17 ? "rules.h17" : "rules.s17"),
    t("rules.bj_pays", { a: v.blackjackPaysNumerator, b: v.blackjackPaysDenominator }),
  ];
  if (v.lateSurrender) rules.push(t("rules.late_surrender"));
  if (v.cashOut) rules.push(t("rules.cash_out"));
  el("variant-rules").textContent = rules.join(" · ");
  const stake = el<HTMLInputElement>("stake");
  if (limits) {
    if (!stake.value || stake.dataset.variant !== v.id) stake.value = formatMoney(limits.mainMin, "", false);
    el("stake-limits").textContent = t("bets.limits", { min: money(limits.mainMin), max: money(limits.mainMax) });
  }
  stake.dataset.variant = v.id;
  renderFreeBets();
  const sides = el("side-bets");
  sides.replaceChildren();
  for (const table of v.sideBets) {
    const name = SIDE_BET_NAMES[table.kind] ?? t("side.bet");
    const id = `side-${table.kind}`;
    const field = document.createElement("div");
    field.className = "field";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = t("bets.side_label", { name, currency: state.currency });
    const input = document.createElement("input");
    input.id = id;
    input.inputMode = "decimal";
    input.autocomplete = "off";
    input.placeholder = formatMoney(0n, "", false);
    input.dataset.kind = String(table.kind);
    const hint = document.createElement("small");
    if (limits) hint.textContent = t("bets.side_limits", { min: money(limits.sideMin), max: money(limits.sideMax) });
    field.append(label, input, hint);
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = t("bets.paytable", { name });
    const paytable = document.createElement("table");
    paytable.className = "paytable";
    for (const line of table.lines) {
      const row = paytable.insertRow();
      row.insertCell().textContent = lineWords(line.line);
      row.insertCell().textContent = t("bets.pays", { pays: String(line.pays) });
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
    showError(new Error(t("bets.enter_main", { example: formatMoney(1000n, "", false) })));
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
      showError(new Error(t("bets.enter_side", {
        name: SIDE_BET_NAMES[Number(input.dataset.kind)] ?? "", example: formatMoney(100n, "", false),
      })));
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
  const freeBetId = chosenFreeBet(el<HTMLSelectElement>("free-bet"), s.freeBets)?.grantId ?? "";
  const response = await busy(() => s.client.deal({ requestId, variantId: v.id, boxes: [bet], forcedCards, clientSeed, freeBetId }));
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
  let label = ACTION_LABELS[a.action] ?? t("table.act");
  if (a.offer > 0n) {
    label += ` (${t("table.receive", { offer: money(a.offer) })}`
      + `${a.fairValue > 0n ? `, ${t("table.fair_value", { value: money(a.fairValue) })}` : ""})`;
  }
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
  renderFreeBets(round.freeBets);
  renderPosition(round.session);
  const dealer = el("dealer-cards");
  dealer.replaceChildren(...round.dealerCards.map(cardElement));
  if (round.dealerHoleHidden) dealer.append(hiddenCard());
  el("dealer-total").textContent = round.dealerTotal
    ? `(${round.dealerSoft ? t("table.soft", { n: round.dealerTotal }) : round.dealerTotal})` : "";
  const boxes = el("boxes");
  boxes.replaceChildren();
  const actions = el("actions");
  actions.replaceChildren();
  for (const box of round.boxes) {
    const area = document.createElement("div");
    area.className = "area";
    const title = document.createElement("h3");
    title.textContent = t("table.box", { stake: money(box.stake) });
    area.append(title);
    box.hands.forEach((hand, index) => {
      const div = document.createElement("div");
      const toAct = round.toAct && round.toAct.seat === box.seat && round.toAct.hand === index
        && round.status === RoundStatus.PLAYER_TURN;
      div.className = `hand${toAct ? " to-act" : ""}`;
      const cards = document.createElement("ul");
      cards.className = "cards";
      cards.setAttribute("aria-label", t("table.hand_cards", { n: index + 1 }));
      cards.append(...hand.cards.map(cardElement));
      const info = document.createElement("p");
      info.className = "hand-info";
      const total = hand.soft ? t("table.soft", { n: hand.total }) : String(hand.total);
      const parts = [t("table.hand", { n: index + 1, total }), t("table.stake", { stake: money(hand.stake) }),
        HAND_WORDS[hand.status] ?? ""];
      if (hand.outcome) parts.push(t("table.outcome_paid", { outcome: OUTCOME_WORDS[hand.outcome] ?? "", paid: money(hand.payout) }));
      info.textContent = parts.filter(Boolean).join(" · ");
      div.append(cards, info);
      area.append(div);
      for (const a of hand.allowed) actions.append(actionButton(a, box.seat, index));
    });
    if (box.insuranceOffered || box.insuranceStake > 0n) {
      const ins = document.createElement("p");
      ins.className = "hand-info";
      const stake = money(box.insuranceStake);
      ins.textContent = box.insuranceStake > 0n
        ? (round.status === RoundStatus.SETTLED
          ? t("table.insurance_paid", { stake, paid: money(box.insurancePayout) }) : t("table.insurance", { stake }))
        : t(round.status === RoundStatus.INSURANCE ? "table.insurance_offer" : "table.no_insurance");
      area.append(ins);
    }
    for (const a of box.insuranceAllowed) actions.append(actionButton(a, box.seat, 0));
    if (box.sideBets.length) {
      const list = document.createElement("ul");
      list.className = "side-results";
      for (const sb of box.sideBets) {
        const li = document.createElement("li");
        const name = SIDE_BET_NAMES[sb.kind] ?? t("side.bet");
        const stake = money(sb.stake);
        li.textContent = !sb.settled ? t("table.side_open", { name, stake })
          : sb.line ? t("table.side_paid", { name, stake, line: lineWords(sb.line), paid: money(sb.payout) })
          : t("table.side_lost", { name, stake });
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
    const verdict = round.status === RoundStatus.VOIDED ? t("result.voided")
      : round.result === ResultClass.WIN ? t("result.won", { amount: money(net) })
      : net < 0n ? t("result.lost", { amount: money(-net) }) : t("result.returned");
    markResult(result, round.status === RoundStatus.VOIDED ? undefined : round.result);
    result.textContent = t("result.line", { verdict, staked: money(round.totalStaked), paid: money(round.totalPaid) })
      + (round.paymentPending ? ` ${t("result.pending")}` : "");
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
    li.textContent = t("history.line", { name, staked: money(r.totalStaked), paid: money(r.totalPaid) });
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
  state = { client, currency: "", variants: [], forcedCards, busy: false, freeBets: [] };
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
  // The session's launch language (kept with the session): a reload, or a page opened with the
  // token alone, speaks it (followLanguage re-words the page when <html lang> changes).
  if (listed.language) document.documentElement.lang = listed.language;
  state.currency = listed.currency;
  state.variants = listed.variants;
  state.freeBets = listed.freeBets;
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
  // ifUnfinished: no unfinished round is an empty answer, not a NOT_FOUND the console logs.
  try {
    const open = await client.getRound({ roundId: "", ifUnfinished: true });
    if (open.round && open.round.status !== RoundStatus.SETTLED && open.round.status !== RoundStatus.VOIDED) {
      select.value = open.round.variantId;
      show(open.round);
    }
  } catch (error) {
    if (errorInfo(error)?.reason !== "ROUND_NOT_FOUND" && ConnectError.from(error).code !== Code.NotFound) showError(error);
  }
}

async function main(): Promise<void> {
  followLanguage();
  const params = new URLSearchParams(window.location.hash.slice(1));
  const launched = await followLaunch();
  if (launched === "refused") return;
  const fromHash = params.get("token");
  if (fromHash) sessionStorage.setItem("rgs.token", fromHash);
  const forced = (params.get("cards") ?? "").split(",").map((c) => c.trim()).filter(Boolean);
  if (window.location.hash) history.replaceState(null, "", window.location.pathname);
  el<HTMLSelectElement>("variant").addEventListener("change", renderVariantForm);
  el<HTMLSelectElement>("free-bet").addEventListener("change", chooseFreeBet);
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
