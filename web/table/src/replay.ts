// The round replay page support opens from a CreateRoundReplay link: the round step by step as
// it was played (each card, each decision and its cost, the dealer, every hand's result), the
// bet, the win, the start and end time, the variant's rules and the fairness record with a
// Verify that recomputes the card order here, in the browser.
//
// The link's capability is in the URL fragment (`/replay#r1....`): never sent to a server nor
// in a Referer. The page takes it out of the address bar and posts it to /replay/round, the
// only call it makes.
//
// Its words are the catalogues' (`replay.*` and the web table's shared words, i18n.ts), in the
// language the link names (`?lang=de`, CreateRoundReplay's `language`) or the page's choice of
// language (which rewrites `?lang=`), else the browser's, else English; amounts and times are
// the locale's (Intl), times in UTC.

import { verifyRound } from "@rgs/client";
import { cardElement, hiddenCard } from "./cards.js";
import {
  browserLanguages, firstSpoken, LANGUAGES, languageName, localizePage, reasonText, t, tn, word,
  intlLocale, type WebKey,
} from "./i18n.js";
import { formatMoney } from "./money.js";
import { detailOf, nameOf, stateAfter, total, type SideBetState, type Step, type TableState } from "./replaystate.js";

interface Fair {
  verifiable?: boolean;
  commitment?: string;
  clientSeed?: string;
  roundNumber?: string;
  decks?: number;
  serverSeed?: string;
}

interface Round {
  roundId: string;
  brandId?: string;
  playerId?: string;
  variantId?: string;
  status?: string;
  currency?: string;
  totalStaked?: string;
  totalPaid?: string;
  totalRefunded?: string;
  startedAt?: string;
  finishedAt?: string;
  forcedCards?: boolean;
  tableId?: string;
  steps?: Step[];
  movements?: { transactionId?: string; kind?: string; amount?: string; status?: string }[];
  fair?: Fair;
}

interface Rules {
  name?: string;
  decks?: number;
  dealerHitsSoft17?: boolean;
  holeCard?: boolean;
  peek?: string;
  blackjackPaysNumerator?: number;
  blackjackPaysDenominator?: number;
  doubleAfterSplit?: boolean;
  doubleAnyCards?: boolean;
  lateSurrender?: boolean;
  maxHands?: number;
  insurancePays?: number;
}

interface Answer {
  round: Round;
  rules: Rules | null;
  expiresAt: string;
}

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

let answer: Answer | undefined;
let refusal: { reason: string; detail: () => string } | undefined;
let round: Round;
let steps: Step[] = [];
let position = 0;
let timer: number | undefined;
let verified: ReturnType<typeof verifyRound> | undefined;

const money = (minor: string | bigint | undefined): string =>
  formatMoney(BigInt(minor ?? "0"), round.currency ?? "");

/** A word by a key made at run time, else the value with `_` as spaces. */
const named = (key: string, value: string): string => word(key) ?? value.replace(/_/g, " ");

/** An enum name from the recall (`OUTCOME_WIN`, `win`, `SIDE_BET_KIND_PERFECT_PAIRS`) as the
 * catalogue's key part (`WIN`, `PERFECT_PAIRS`). */
const upper = (value: unknown): string =>
  String(value ?? "").replace(/^(OUTCOME_|SIDE_BET_KIND_|ACTION_)/i, "").toUpperCase();

/** An instant in the locale's way, in UTC (support compares it with the operator's logs). */
function when(iso: string | undefined): HTMLElement | string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const time = document.createElement("time");
  time.dateTime = at.toISOString();
  time.textContent = new Intl.DateTimeFormat(intlLocale(), {
    dateStyle: "medium", timeStyle: "long", timeZone: "UTC",
  }).format(at);
  return time;
}

function put(id: string, content: HTMLElement | string): void {
  el(id).replaceChildren(content);
}

// ------------------------------------------------------------------ the language

/** The language the page opens in: the link's `?lang=`, else the browser's, else English. */
function openingLanguage(): string {
  return firstSpoken([new URLSearchParams(location.search).get("lang"), ...browserLanguages()]);
}

/** Speak `lang` from now on: the page's words, every figure and step; the address keeps it
 * (`?lang=`) and the capability stays out of it. */
function speak(lang: string): void {
  document.documentElement.lang = lang;
  el<HTMLSelectElement>("language").value = lang;
  const query = new URLSearchParams(location.search);
  if (query.get("lang") !== lang && location.protocol !== "file:") {
    query.set("lang", lang);
    history.replaceState(null, "", `${location.pathname}?${query.toString()}`);
  }
  localizePage(document, "replay.page_title");
  if (answer) paint(answer);
  else if (refusal) sayRefused();
}

function offerLanguages(): void {
  const choice = el<HTMLSelectElement>("language");
  choice.replaceChildren(...LANGUAGES.map((lang) => {
    const option = document.createElement("option");
    option.value = lang;
    option.lang = lang;
    option.textContent = languageName(lang);
    return option;
  }));
  choice.onchange = () => speak(choice.value);
}

// ------------------------------------------------------------------ refusals

function refuse(reason: string, detail: () => string): void {
  refusal = { reason, detail };
  sayRefused();
}

function sayRefused(): void {
  if (!refusal) return;
  const { reason, detail } = refusal;
  el("loading").hidden = true;
  el("refused").hidden = false;
  const sentence = reason ? reasonText(reason) : undefined;
  el("refused-reason").textContent = `${sentence ?? t("replay.cannot_show")} ${detail()}`.trim();
  el("refused").dataset.reason = reason;
}

// ------------------------------------------------------------------ the round in words

function rulesText(r: Rules | null): string {
  if (!r) return "";
  const peek = r.peek ? t("replay.rules.peek", { peek: named(`replay.peek.${r.peek}`, r.peek) }) : "";
  const parts = [r.name ?? "", tn("rules.decks", r.decks ?? 0),
    t(r.dealerHitsSoft17 ? "rules.h17" : "rules.s17"),
    t("rules.bj_pays", { a: r.blackjackPaysNumerator ?? 3, b: r.blackjackPaysDenominator ?? 2 }),
    r.holeCard === false ? t("replay.rules.no_hole") : `${t("replay.rules.hole")}${peek}`,
    t(r.doubleAnyCards ? "replay.rules.double_any" : "replay.rules.double_two"),
    t(r.doubleAfterSplit ? "replay.rules.das" : "replay.rules.no_das"),
    t(r.lateSurrender ? "rules.late_surrender" : "replay.rules.no_surrender"),
    tn("replay.rules.hands", r.maxHands ?? 1)];
  if (r.insurancePays) parts.push(t("replay.rules.insurance", { n: r.insurancePays }));
  return t("replay.rules", { rules: parts.filter(Boolean).join(" · ") });
}

const where = (step: Step, start = false): string =>
  t(start ? "replay.where_start" : "replay.where", { seat: step.seat ?? 0, hand: (step.hand ?? 0) + 1 });

/** A player a step names (a table round's Bet Behind), else "a player". */
const who = (d: Record<string, unknown>): string => nameOf(d.player) || t("replay.someone");

const acted = (action: string | undefined): string => named(`acted.${upper(action)}`, action ?? "");
const settled = (outcome: unknown): string => named(`settled.${upper(outcome)}`, String(outcome ?? "").toLowerCase());
const sideName = (kind: string): string =>
  kind === "insurance" ? t("shared.insurance") : named(`sidebet.${upper(kind)}`, kind.toLowerCase());
const lineName = (line: string): string => named(`line.${line}`, line);

/** One step in words: what was dealt, decided or paid. */
export function narrate(step: Step): string {
  const d = detailOf(step);
  const seat = step.seat ?? 0;
  switch (step.kind) {
    case "round_started": return t("replay.step.round_started");
    case "card_dealt":
      if (step.seat) return t("replay.step.card", { card: step.card ?? "", where: where(step) });
      return t(d.face_down ? "replay.step.dealer_card_down" : "replay.step.dealer_card", { card: step.card ?? "" });
    case "hole_card_revealed": return t("replay.step.hole", { card: step.card ?? "" });
    case "card_burned": return t("replay.step.burned", { card: step.card ?? "" });
    case "dealer_peeked": return t(d.blackjack ? "replay.step.peek_blackjack" : "replay.step.peek_none");
    case "player_acted": {
      const values = { where: where(step, true), action: acted(step.action), cost: money(step.amount) };
      return t(BigInt(step.amount ?? "0") ? "replay.step.acted_cost" : "replay.step.acted", values);
    }
    case "hand_settled":
      return t("replay.step.hand_settled", { where: where(step, true), outcome: settled(d.outcome), paid: money(step.amount) });
    case "insurance_settled": return t("replay.step.insurance", { seat, paid: money(step.amount) });
    case "side_bet_settled": {
      const values = { name: sideName(String(d.kind ?? "")), seat, line: lineName(String(d.line ?? "")), paid: money(step.amount) };
      return t(lost(String(d.line ?? ""), BigInt(step.amount ?? "0")) ? "replay.step.side_bet_lost" : "replay.step.side_bet", values);
    }
    case "behind_stake_added":
      return t("replay.step.behind_added", { who: who(d), seat, action: acted(step.action), amount: money(step.amount) });
    case "behind_follow_skipped":
      return t("replay.step.behind_skipped", { who: who(d), seat, action: acted(step.action) });
    case "behind_settled":
      return t("replay.step.behind_settled", { who: who(d), where: where(step), outcome: settled(d.outcome), paid: money(step.amount) });
    case "behind_insurance_settled":
      return t("replay.step.behind_insurance", { who: who(d), seat, paid: money(step.amount) });
    case "round_settled":
      if (d.total_staked === undefined && d.total_paid === undefined) return t("replay.step.round_settled_table");
      return t("replay.step.round_settled", { staked: money(String(d.total_staked ?? 0)), paid: money(String(d.total_paid ?? 0)) });
    case "round_voided": return t("replay.step.round_voided", { reason: String(d.reason ?? "") });
    default: return t("replay.step.other", { kind: (step.kind ?? "").replace(/_/g, " ") });
  }
}

function totalText(cards: readonly string[]): string {
  if (!cards.length) return "—";
  const { value, soft } = total(cards);
  return soft ? t("table.soft", { n: value }) : String(value);
}

/** A side bet lost: no paytable line (the engine's `lose`) and nothing paid. */
const lost = (line: string, paid: bigint): boolean => !paid && (!line || line === "lose");

function sideBetText(b: SideBetState): string {
  const values = { name: sideName(b.kind), line: lineName(b.line), paid: money(b.payout) };
  if (lost(b.line, b.payout)) return t("replay.side_lost", values);
  return t(b.line && b.line !== "lose" ? "replay.side_line" : "replay.side_paid", values);
}

function drawTable(state: TableState): void {
  const dealer = el("dealer-cards");
  dealer.replaceChildren(...state.dealer.map((c) => {
    if (!c.faceDown) return cardElement(c.card);
    const li = hiddenCard();  // face down as the players saw it, until the dealer turns it
    li.dataset.card = c.card;
    li.setAttribute("aria-label", t("replay.face_down", { card: c.card }));
    li.title = c.card;
    return li;
  }));
  const shown = state.dealer.filter((c) => c.card && !c.faceDown).map((c) => c.card);
  el("dealer-total").textContent = shown.length ? totalText(shown) : "";
  const boxes = el("boxes");
  boxes.replaceChildren(...[...state.seats.values()].sort((a, b) => a.seat - b.seat).map((s) => {
    const area = document.createElement("div");
    area.className = "area box";
    area.dataset.seat = String(s.seat);
    const h = document.createElement("h3");
    const name = s.name || (!round.tableId ? round.playerId ?? "" : "");
    h.textContent = name ? t("replay.seat_named", { n: s.seat, name }) : t("shared.seat", { n: s.seat });
    area.append(h);
    s.hands.forEach((hand, i) => {
      const div = document.createElement("div");
      div.className = "hand";
      div.dataset.hand = String(i);
      const cards = document.createElement("ul");
      cards.className = "cards";
      cards.setAttribute("aria-label", t("table.hand_cards", { n: i + 1 }));
      cards.append(...hand.cards.map((c) => cardElement(c)));
      const info = document.createElement("p");
      info.className = "hand-info";
      const result = hand.outcome
        ? t("replay.hand_result", { outcome: settled(hand.outcome), paid: money(hand.payout ?? 0n) }) : "";
      info.textContent = t("replay.hand_info", {
        n: i + 1, total: totalText(hand.cards), bet: hand.stake ? money(hand.stake) : "—",
        doubled: hand.doubled ? t("replay.doubled") : "", result,
      });
      div.append(cards, info);
      area.append(div);
    });
    for (const bet of s.sideBets) {
      const p = document.createElement("p");
      p.className = "hand-info";
      p.textContent = sideBetText(bet);
      area.append(p);
    }
    return area;
  }));
}

function show(to: number): void {
  position = Math.max(0, Math.min(steps.length, to));
  drawTable(stateAfter(steps, position));
  el("position").textContent = t("replay.position", { n: position, total: steps.length });
  el("narration").textContent = position ? narrate(steps[position - 1]) : t("replay.before_first");
  el<HTMLOListElement>("steps").querySelectorAll("li").forEach((li, i) => {
    li.classList.toggle("mine", i === position - 1);
    li.hidden = i >= position;
  });
  el<HTMLButtonElement>("previous").disabled = el<HTMLButtonElement>("first").disabled = position === 0;
  el<HTMLButtonElement>("next").disabled = el<HTMLButtonElement>("last").disabled = position === steps.length;
  if (position === steps.length) stop();
}

function stop(): void {
  if (timer !== undefined) window.clearInterval(timer);
  timer = undefined;
  el("play").textContent = t("replay.play");
}

function play(): void {
  if (timer !== undefined) return stop();
  if (position === steps.length) show(0);
  el("play").textContent = t("replay.pause");
  timer = window.setInterval(() => show(position + 1), 800);
}

function fairSummary(f: Fair): WebKey {
  if (!f.verifiable) return round.forcedCards ? "replay.fair.forced" : "replay.fair.not_fair";
  if (round.tableId) return "replay.fair.table";
  return f.serverSeed ? "replay.fair.revealed" : "replay.fair.later";
}

function renderFair(fair: Fair | undefined): void {
  el("fair").hidden = false;
  const f = fair ?? {};
  el("commitment").textContent = f.commitment || "—";
  el("client-seed").textContent = f.clientSeed || t("replay.none");
  el("round-number").textContent = f.roundNumber ?? "0";
  el("decks").textContent = String(f.decks ?? "—");
  el("server-seed").textContent = f.serverSeed || (f.verifiable ? t("replay.not_revealed") : "—");
  el("fair-summary").textContent = t(fairSummary(f));
  el("verify").hidden = !(f.verifiable && f.serverSeed && !round.tableId);
  el("verify").onclick = () => {
    verified = verifyRound({
      serverSeed: f.serverSeed ?? "", commitment: f.commitment ?? "", clientSeed: f.clientSeed ?? "",
      roundNumber: BigInt(f.roundNumber ?? "0"), decks: f.decks ?? 0,
      dealt: steps.filter((s) => s.kind === "card_dealt").map((s) => s.card ?? ""),
    });
    sayVerified();
  };
  sayVerified();
}

/** The result of Verify; its check lines are the verifier's (@rgs/client), in English. */
function sayVerified(): void {
  const result = el("fair-result");
  if (!verified) {
    result.textContent = "";
    el("fair-lines").replaceChildren();
    return;
  }
  result.textContent = t(verified.ok ? "replay.fair.ok" : "replay.fair.bad");
  result.className = `fair-result ${verified.ok ? "fair-ok" : "fair-bad"}`;
  el("fair-lines").replaceChildren(...verified.lines.map((line) => {
    const li = document.createElement("li");
    li.lang = "en";
    li.textContent = line;
    return li;
  }));
}

/** The whole page for the answer, in the language spoken now (again after a change of
 * language, at the same step). */
function paint(got: Answer): void {
  round = got.round;
  steps = round.steps ?? [];
  el("loading").hidden = true;
  put("expires", when(got.expiresAt));
  el("round-id").textContent = round.roundId;
  el("player").textContent = `${round.playerId ?? ""} (${round.brandId ?? ""})`;
  const game = got.rules?.name ?? round.variantId ?? "";
  el("game").textContent = round.tableId ? t("replay.game_at_table", { game, table: round.tableId }) : game;
  el("status").textContent = named(`replay.status.${round.status ?? ""}`, round.status ?? "");
  put("started", when(round.startedAt));
  put("ended", when(round.finishedAt));
  el("bet").textContent = money(round.totalStaked);
  el("won").textContent = money(round.totalPaid);
  el("returned").textContent = money(round.totalRefunded);
  el("rules").textContent = rulesText(got.rules);
  el<HTMLOListElement>("steps").replaceChildren(...steps.map((s) => {
    const li = document.createElement("li");
    li.textContent = narrate(s);
    return li;
  }));
  el("movements").replaceChildren(...(round.movements ?? []).map((m) => {
    const li = document.createElement("li");
    li.textContent = t("replay.movement", {
      kind: named(`replay.movement.${m.kind ?? ""}`, m.kind ?? ""), amount: money(m.amount),
      status: named(`replay.movement_status.${m.status ?? ""}`, m.status ?? ""), id: m.transactionId ?? "",
    });
    return li;
  }));
  el("summary").hidden = el("replay").hidden = el("money").hidden = false;
  renderFair(round.fair);
  el("first").onclick = () => { stop(); show(0); };
  el("previous").onclick = () => { stop(); show(position - 1); };
  el("next").onclick = () => { stop(); show(position + 1); };
  el("last").onclick = () => { stop(); show(steps.length); };
  el("play").onclick = play;
  el("play").textContent = t(timer === undefined ? "replay.play" : "replay.pause");
  show(position);
}

async function start(): Promise<void> {
  const token = location.hash.slice(1);
  if (token) history.replaceState(null, "", location.pathname + location.search);  // out of the address bar
  offerLanguages();
  speak(openingLanguage());
  if (!token) return refuse("REPLAY_LINK_INVALID", () => t("replay.no_token"));
  let resp: Response;
  try {
    resp = await fetch("/replay/round", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }), referrerPolicy: "no-referrer", cache: "no-store",
    });
  } catch {
    return refuse("", () => t("replay.unreachable"));
  }
  const got = await resp.json().catch(() => ({}));
  if (!resp.ok) {
    const reason = String(got.reason ?? "");
    // A reason the catalogue knows is said in the page's language; else the server's words.
    return refuse(reason, () => (reasonText(reason) ? "" : String(got.message ?? "")));
  }
  answer = got as Answer;
  paint(answer);
}

void start();
