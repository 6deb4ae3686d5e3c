// The round replay page support opens from a CreateRoundReplay link: the round step by step as
// it was played (each card, each decision and its cost, the dealer, every hand's result), the
// bet, the win, the start and end time, the variant's rules and the fairness record with a
// Verify that recomputes the card order here, in the browser.
//
// The link's capability is in the URL fragment (`/replay#r1....`): never sent to a server nor
// in a Referer. The page takes it out of the address bar and posts it to /replay/round, the
// only call it makes.

import { verifyRound } from "@rgs/client";
import { cardElement, hiddenCard } from "./cards.js";
import { formatMoney } from "./money.js";
import { detailOf, stateAfter, total, type Step, type TableState } from "./replaystate.js";

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

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

const REFUSALS: Record<string, string> = {
  REPLAY_LINK_EXPIRED: "This replay link has expired.",
  REPLAY_LINK_INVALID: "This replay link is not valid: it was changed or cut.",
  ROUND_NOT_FOUND: "The round of this link cannot be found.",
  REPLAY_NOT_CONFIGURED: "Round replay is not configured on this server.",
};

let round: Round;
let steps: Step[] = [];
let position = 0;
let timer: number | undefined;

const money = (minor: string | undefined): string => formatMoney(BigInt(minor ?? "0"), round.currency ?? "");
const when = (iso: string | undefined): string => (iso ? new Date(iso).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC").replace("Z", " UTC") : "—");
const words = (text: string): string => text.replace(/_/g, " ");

function refuse(reason: string, message: string): void {
  el("loading").hidden = true;
  el("refused").hidden = false;
  el("refused-reason").textContent = `${REFUSALS[reason] ?? "The round cannot be shown."} ${message}`.trim();
  el("refused").dataset.reason = reason;
}

function rulesText(r: Rules | null): string {
  if (!r) return "";
  const parts = [r.name ?? "", `${r.decks ?? "?"} decks`, r.dealerHitsSoft17 ? "dealer hits soft 17" : "dealer stands on soft 17",
    `blackjack pays ${r.blackjackPaysNumerator ?? 3}:${r.blackjackPaysDenominator ?? 2}`,
    r.holeCard === false ? "no hole card" : `hole card${r.peek ? `, peek ${words(r.peek.toLowerCase().replace("peek_", ""))}` : ""}`,
    r.doubleAnyCards ? "double on any cards" : "double on two cards",
    r.doubleAfterSplit ? "double after split" : "no double after split",
    r.lateSurrender ? "late surrender" : "no surrender", `up to ${r.maxHands ?? 1} hands`];
  if (r.insurancePays) parts.push(`insurance pays ${r.insurancePays}:1`);
  return `Rules: ${parts.filter(Boolean).join(" · ")}.`;
}

/** One step in words: what was dealt, decided or paid. */
export function narrate(step: Step): string {
  const d = detailOf(step);
  const where = `seat ${step.seat ?? 0}, hand ${(step.hand ?? 0) + 1}`;
  switch (step.kind) {
    case "round_started": return "The round starts: bets are taken.";
    case "card_dealt":
      return !step.seat ? `Dealer gets ${step.card}${d.face_down ? " (face down)" : ""}.` : `Card ${step.card} to ${where}.`;
    case "hole_card_revealed": return `Dealer turns the hole card: ${step.card}.`;
    case "card_burned": return `Card ${step.card} burned.`;
    case "dealer_peeked": return d.blackjack ? "Dealer peeks: blackjack." : "Dealer peeks: no blackjack.";
    case "player_acted": {
      const cost = BigInt(step.amount ?? "0");
      return `${where[0].toUpperCase()}${where.slice(1)}: ${words(step.action ?? "")}${cost ? ` — costs ${money(step.amount)}` : ""}.`;
    }
    case "hand_settled": return `${where[0].toUpperCase()}${where.slice(1)}: ${words(String(d.outcome ?? "").replace(/^OUTCOME_/, "").toLowerCase())}, pays ${money(step.amount)}.`;
    case "insurance_settled": return `Insurance of seat ${step.seat ?? 0} pays ${money(step.amount)}.`;
    case "side_bet_settled": return `Side bet ${words(String(d.kind ?? ""))} of seat ${step.seat ?? 0}: ${words(String(d.line ?? ""))}, pays ${money(step.amount)}.`;
    case "round_settled": return `The round is settled: staked ${money(String(d.total_staked ?? 0))}, paid ${money(String(d.total_paid ?? 0))}.`;
    case "round_voided": return `The round is voided: ${String(d.reason ?? "")}.`;
    default: return words(step.kind ?? "step");
  }
}

function drawTable(state: TableState): void {
  const dealer = el("dealer-cards");
  dealer.replaceChildren(...state.dealer.map((c) => {
    if (!c.faceDown) return cardElement(c.card);
    const li = hiddenCard();  // face down as the players saw it, until the dealer turns it
    li.dataset.card = c.card;
    li.setAttribute("aria-label", `Face-down card (${c.card})`);
    li.title = c.card;
    return li;
  }));
  const shown = state.dealer.filter((c) => c.card && !c.faceDown).map((c) => c.card);
  el("dealer-total").textContent = shown.length ? total(shown) : "";
  const boxes = el("boxes");
  boxes.replaceChildren(...[...state.seats.values()].sort((a, b) => a.seat - b.seat).map((s) => {
    const area = document.createElement("div");
    area.className = "area box";
    area.dataset.seat = String(s.seat);
    const h = document.createElement("h3");
    const name = !round.tableId && s.name === `Seat ${s.seat}` ? round.playerId ?? "" : s.name;
    h.textContent = name && name !== `Seat ${s.seat}` ? `Seat ${s.seat}: ${name}` : `Seat ${s.seat}`;
    area.append(h);
    s.hands.forEach((hand, i) => {
      const div = document.createElement("div");
      div.className = "hand";
      div.dataset.hand = String(i);
      const cards = document.createElement("ul");
      cards.className = "cards";
      cards.setAttribute("aria-label", `Hand ${i + 1}`);
      cards.append(...hand.cards.map((c) => cardElement(c)));
      const info = document.createElement("p");
      info.className = "hand-info";
      const result = hand.outcome ? ` · ${words(hand.outcome)}, pays ${money(String(hand.payout ?? 0n))}` : "";
      info.textContent = `Hand ${i + 1}: ${hand.cards.length ? total(hand.cards) : "—"} · bet ${hand.stake ? money(String(hand.stake)) : "—"}${hand.doubled ? " (doubled)" : ""}${result}`;
      div.append(cards, info);
      area.append(div);
    });
    for (const line of s.sideBets) {
      const p = document.createElement("p");
      p.className = "hand-info";
      p.textContent = line;
      area.append(p);
    }
    return area;
  }));
}

function show(to: number): void {
  position = Math.max(0, Math.min(steps.length, to));
  drawTable(stateAfter(steps, position));
  el("position").textContent = `Step ${position} of ${steps.length}`;
  el("narration").textContent = position ? narrate(steps[position - 1]) : "Before the first step.";
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
  el("play").textContent = "Play";
}

function play(): void {
  if (timer !== undefined) return stop();
  if (position === steps.length) show(0);
  el("play").textContent = "Pause";
  timer = window.setInterval(() => show(position + 1), 800);
}

function renderFair(fair: Fair | undefined): void {
  el("fair").hidden = false;
  const f = fair ?? {};
  el("commitment").textContent = f.commitment || "—";
  el("client-seed").textContent = f.clientSeed || "(none)";
  el("round-number").textContent = f.roundNumber ?? "0";
  el("decks").textContent = String(f.decks ?? "—");
  el("server-seed").textContent = f.serverSeed || (f.verifiable ? "(not revealed yet)" : "—");
  const solo = !round.tableId;
  const canVerify = Boolean(f.verifiable && f.serverSeed && solo);
  el("fair-summary").textContent = !f.verifiable
    ? (round.forcedCards ? "Dealt with forced cards (test mode): not a provably fair round." : "Not a provably fair round.")
    : !solo ? "A shared table's round: `rgs verify` checks it with every seat's seed (GetTableRound)."
    : f.serverSeed ? "The server seed is revealed: Verify recomputes the card order in this browser." : "The server seed is revealed once the round is over.";
  el("verify").hidden = !canVerify;
  el("verify").onclick = () => {
    const check = verifyRound({
      serverSeed: f.serverSeed ?? "", commitment: f.commitment ?? "", clientSeed: f.clientSeed ?? "",
      roundNumber: BigInt(f.roundNumber ?? "0"), decks: f.decks ?? 0,
      dealt: steps.filter((s) => s.kind === "card_dealt").map((s) => s.card ?? ""),
    });
    const result = el("fair-result");
    result.textContent = check.ok ? "Fair: the cards dealt are the committed order." : "Not verified: see below.";
    result.className = `fair-result ${check.ok ? "fair-ok" : "fair-bad"}`;
    el("fair-lines").replaceChildren(...check.lines.map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
  };
}

function render(answer: { round: Round; rules: Rules | null; expiresAt: string }): void {
  round = answer.round;
  steps = round.steps ?? [];
  el("loading").hidden = true;
  el("expires").textContent = when(answer.expiresAt);
  el("round-id").textContent = round.roundId;
  el("player").textContent = `${round.playerId ?? ""} (${round.brandId ?? ""})`;
  el("game").textContent = `${answer.rules?.name ?? round.variantId ?? ""}${round.tableId ? ` at table ${round.tableId}` : ""}`;
  el("status").textContent = words(round.status ?? "");
  el("started").textContent = when(round.startedAt);
  el("ended").textContent = when(round.finishedAt);
  el("bet").textContent = money(round.totalStaked);
  el("won").textContent = money(round.totalPaid);
  el("returned").textContent = money(round.totalRefunded);
  el("rules").textContent = rulesText(answer.rules);
  el<HTMLOListElement>("steps").replaceChildren(...steps.map((s) => {
    const li = document.createElement("li");
    li.textContent = narrate(s);
    return li;
  }));
  el("movements").replaceChildren(...(round.movements ?? []).map((m) => {
    const li = document.createElement("li");
    li.textContent = `${m.kind ?? ""} ${money(m.amount)} · ${m.status ?? ""} · ${m.transactionId ?? ""}`;
    return li;
  }));
  el("summary").hidden = el("replay").hidden = el("money").hidden = false;
  renderFair(round.fair);
  el("first").onclick = () => { stop(); show(0); };
  el("previous").onclick = () => { stop(); show(position - 1); };
  el("next").onclick = () => { stop(); show(position + 1); };
  el("last").onclick = () => { stop(); show(steps.length); };
  el("play").onclick = play;
  show(0);
}

async function start(): Promise<void> {
  const token = location.hash.slice(1);
  if (token) history.replaceState(null, "", location.pathname);  // out of the address bar
  if (!token) return refuse("REPLAY_LINK_INVALID", "The link has no replay token after #.");
  let resp: Response;
  try {
    resp = await fetch("/replay/round", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }), referrerPolicy: "no-referrer", cache: "no-store",
    });
  } catch {
    return refuse("", "The server cannot be reached: try again.");
  }
  const answer = await resp.json().catch(() => ({}));
  if (!resp.ok) return refuse(String(answer.reason ?? ""), String(answer.message ?? ""));
  render(answer);
}

void start();
