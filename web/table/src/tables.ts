// Shared tables: list the tables the brand offers, watch one (a server stream of numbered
// events, resumed from the last number after a disconnect), sit, bet (Bet Behind on another
// seat with its presets), Deal Now, decide, insurance. Everything is drawn from the table's
// snapshot; each event asks for a fresh one.

import {
  clientSeedProblem,
  createTableClient,
  create,
  newRequestId,
  table,
  verifyTableRound,
  type TableClient,
  type TableFairness,
} from "@rgs/client";
import { cardElement, hiddenCard } from "./cards.js";
import { labelDecision } from "./hints.js";
import { formatMoney, parseMoney } from "./money.js";

interface Hooks {
  currency: string;
  showError: (error: unknown) => void;
  clearError: () => void;
  refreshBalance: () => Promise<void>;
  forcedCards: string[];
}

// The snapshot is JSON the server documents (docs/tables.md), read as such.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

const INSURANCE: Record<string, table.BehindInsurance> = {
  never: table.BehindInsurance.NEVER,
  always: table.BehindInsurance.ALWAYS,
  ask: table.BehindInsurance.ASK,
};

const ACTION_WORDS: Record<string, string> = {
  hit: "Hit", stand: "Stand", double: "Double", split: "Split", surrender: "Surrender",
  cash_out: "Cash Out", power_split: "Power Split", power_double: "Power Double",
  power_keep: "Keep the card", power_replace: "Replace the card",
};

/** When to read the balance again after a round ends (ms): the outbox pays within a second on a
 * healthy replica, and retries a wallet that is slow. */
const BALANCE_FOLLOW_UP_MS = [500, 1500, 4000, 10000];

class TableView {
  private client: TableClient;
  private tableId = "";
  private info?: table.TableInfo;
  private lastSeq?: bigint;
  private snap?: Json;
  private abort?: AbortController;
  private refreshing = false;
  private refreshAgain = false;
  private timer?: number;
  private balanceTimers: number[] = [];
  /** The commitment this page showed for each round while its bets were open (round id ->
   * commitment), and the next round's (shown while the table is idle). */
  private shownCommitments = new Map<string, string>();
  private idleCommitment = "";
  private lastRound?: { roundId: string; fair: TableFairness };

  // Who the player is at the table: learnt from the seat they take (the session token names no
  // player to the page), kept for reloads.
  private playerId = sessionStorage.getItem("rgs.table-player") ?? "";

  constructor(token: string, private hooks: Hooks) {
    this.client = createTableClient({ baseUrl: window.location.origin, sessionToken: token });
  }

  private money(minor: number | bigint): string {
    return formatMoney(BigInt(minor), this.info?.currency ?? this.hooks.currency);
  }

  async list(): Promise<void> {
    const listed = await this.client.listTables({});
    const ul = el<HTMLUListElement>("table-list");
    ul.replaceChildren(...listed.tables.map((t) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = `Watch ${t.tableId}`;
      b.addEventListener("click", () => void this.watch(t));
      li.append(b, ` ${t.variantId}, ${t.seats} seats, bets ${this.moneyOf(t.mainMin, t.currency)}`
        + ` to ${this.moneyOf(t.mainMax, t.currency)}`);
      return li;
    }));
    el("shared").hidden = false;
  }

  private moneyOf(minor: bigint, currency: string): string {
    return formatMoney(minor, currency);
  }

  async watch(info: table.TableInfo): Promise<void> {
    this.abort?.abort();
    this.info = info;
    this.tableId = info.tableId;
    this.lastSeq = undefined;
    el("shared-table").hidden = false;
    el("shared-title").textContent = `Table ${info.tableId}`;
    const abort = new AbortController();
    this.abort = abort;
    while (!abort.signal.aborted) {
      try {
        for await (const item of this.client.watchTable(
          { tableId: this.tableId, fromSeq: this.lastSeq }, { signal: abort.signal })) {
          if (item.item.case === "snapshot") {
            this.lastSeq = item.item.value.seq;
            this.render(JSON.parse(item.item.value.stateJson));
          } else if (item.item.case === "event") {
            this.lastSeq = item.item.value.seq;
            this.logEvent(item.item.value.kind, JSON.parse(item.item.value.payloadJson));
            void this.refresh();
          }
        }
      } catch (error) {
        if (abort.signal.aborted) return;
      }
      // The stream ended (network, a replica stopping): resume from the last number seen.
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** A fresh snapshot (a short stream without a number: its first item). */
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const stop = new AbortController();
        try {
          for await (const item of this.client.watchTable({ tableId: this.tableId },
                                                          { signal: stop.signal })) {
            if (item.item.case === "snapshot") this.render(JSON.parse(item.item.value.stateJson));
            break;
          }
        } finally {
          stop.abort();
        }
      } while (this.refreshAgain);
    } catch {
      // the watch stream carries on; the next event refreshes again
    } finally {
      this.refreshing = false;
    }
  }

  private logEvent(kind: string, payload: Json): void {
    const log = el<HTMLOListElement>("table-events");
    const li = document.createElement("li");
    const who = payload.player_id ? ` ${payload.player_id}` : "";
    const seat = payload.seat !== undefined && payload.seat !== null ? ` seat ${payload.seat}` : "";
    li.textContent = `${kind.replace(/_/g, " ")}${seat}${who}`;
    log.prepend(li);
    while (log.children.length > 12) log.lastElementChild?.remove();
    if (kind === "round_finished" || kind === "behind_refunded") this.followPayments();
  }

  /**
   * The balance after a round ends or a stake is refunded. The table's wins and refunds reach
   * the wallet through the RGS's outbox just after the event, not with it: read the balance
   * now and again over the next seconds, so the page shows the payment once it lands.
   */
  private followPayments(): void {
    for (const t of this.balanceTimers) window.clearTimeout(t);
    void this.hooks.refreshBalance();
    this.balanceTimers = BALANCE_FOLLOW_UP_MS.map((ms) =>
      window.setTimeout(() => void this.hooks.refreshBalance(), ms));
  }

  private mySeat(): number | undefined {
    return this.snap?.seats.find((s: Json) => s.player_id === this.playerId)?.seat;
  }

  render(snap: Json): void {
    this.snap = snap;
    const seats = this.info?.seats ?? 7;
    const round = snap.round;
    el("table-phase").textContent = `Round ${snap.round_no}: ${String(snap.phase).replace(/_/g, " ")}`;
    this.countdown(snap.deadline);
    const mine = this.mySeat();
    const ul = el<HTMLUListElement>("table-seats");
    const items: HTMLLIElement[] = [];
    for (let n = 1; n <= seats; n++) {
      const li = document.createElement("li");
      li.className = "seat";
      li.dataset.seat = String(n);
      const sat = snap.seats.find((s: Json) => s.seat === n);
      const head = document.createElement("h4");
      head.textContent = sat ? `Seat ${n}: ${sat.player_id}${sat.player_id === this.playerId ? " (you)" : ""}`
                             : `Seat ${n}: free`;
      li.append(head);
      if (sat && sat.hot > 0) {
        const hot = document.createElement("p");
        hot.className = "hot";
        hot.textContent = `Hot streak: ${sat.hot} won in a row`;
        li.append(hot);
      }
      const bet = snap.bets.find((b: Json) => b.seat === n);
      if (bet) {
        const p = document.createElement("p");
        const sides = [["Perfect Pairs", bet.perfect_pairs], ["21+3", bet.twenty_one_plus_three],
                       ["20+", bet.twenty_plus]].filter(([, v]) => v > 0)
          .map(([k, v]) => `${k} ${this.money(v)}`);
        p.textContent = `Bet ${this.money(bet.stake)}${sides.length ? `, ${sides.join(", ")}` : ""}`
          + (bet.deal_now ? " — ready" : "");
        li.append(p);
      }
      for (const b of snap.behind.filter((x: Json) => x.seat === n)) {
        const p = document.createElement("p");
        p.className = "behind";
        p.textContent = `Behind: ${b.player_id} ${this.money(b.stake)}`;
        li.append(p);
      }
      const box = round?.boxes.find((x: Json) => x.seat === n);
      for (const h of box?.hands ?? []) {
        const cards = document.createElement("ul");
        cards.className = "cards";
        cards.setAttribute("aria-label", `Seat ${n} hand ${h.index + 1}`);
        cards.append(...h.cards.map((c: string) => cardElement(c)));
        const toAct = round.to_act && round.to_act[0] === n && round.to_act[1] === h.index;
        const info = document.createElement("p");
        info.className = "hand-info";
        info.textContent = `${h.soft ? "soft " : ""}${h.total}, ${String(h.status).replace(/_/g, " ")}`
          + (h.outcome ? `, ${h.outcome} (paid ${this.money(h.payout)})` : "")
          + (toAct ? " — to act" : "");
        if (toAct) li.classList.add("to-act");
        li.append(cards, info);
      }
      if (!sat && mine === undefined && snap.phase !== "playing") {
        li.append(this.button(`Sit at seat ${n}`, async () => {
          const taken = await this.client.takeSeat(
            { requestId: newRequestId(), tableId: this.tableId, seat: n });
          const state = JSON.parse(taken.result?.snapshot?.stateJson ?? "{}");
          this.playerId = state.seats?.find((s: Json) => s.seat === n)?.player_id ?? "";
          sessionStorage.setItem("rgs.table-player", this.playerId);
          return taken;
        }));
      }
      items.push(li);
    }
    ul.replaceChildren(...items);
    const dealer = el<HTMLUListElement>("table-dealer");
    dealer.replaceChildren(...(round?.dealer_cards ?? []).map((c: string) => cardElement(c)));
    if (round?.dealer_hole_hidden) dealer.append(hiddenCard());
    el("table-dealer-total").textContent = round ? `(${round.dealer_total})` : "";
    this.renderFairness(snap);
    this.renderControls(snap, mine);
  }

  /** The commitment while a round's bets are open or it is played (the next one when idle),
   * and the last finished round's revealed seed with a Verify button. */
  private renderFairness(snap: Json): void {
    const line = el("table-commitment-line");
    const fair: TableFairness | null = snap.fair ?? null;
    if (fair && fair.commitment) {
      if (snap.phase === "betting" && snap.round_id && !this.shownCommitments.has(snap.round_id)) {
        this.shownCommitments.set(snap.round_id, fair.commitment);
      }
      el("table-commitment-label").textContent = `Round ${fair.round_number}'s cards are fixed: commitment`;
      el("table-commitment").textContent = fair.commitment;
      line.hidden = false;
    } else if (snap.next_commitment) {
      this.idleCommitment = snap.next_commitment;
      el("table-commitment-label").textContent = "The next round's cards are fixed: commitment";
      el("table-commitment").textContent = snap.next_commitment;
      line.hidden = false;
    } else {
      line.hidden = true;
    }
    const last = snap.last_round;
    if (last?.fair?.server_seed) {
      if (this.lastRound?.roundId !== last.round_id) {
        el("table-verify-result").textContent = "";
        el("table-verify-lines").replaceChildren();
      }
      this.lastRound = { roundId: last.round_id, fair: last.fair };
      el("table-last-round").textContent = last.round_id;
      el("table-last-seed").textContent = last.fair.server_seed;
      el("table-last").hidden = false;
    }
  }

  /** Verify the last finished round here, in the browser (docs/rng.md), and say so in words. */
  verifyLast(): void {
    const last = this.lastRound;
    if (!last) return;
    const check = verifyTableRound(last.fair, this.shownCommitments.get(last.roundId));
    const result = el("table-verify-result");
    result.textContent = check.ok ? `FAIR: round ${last.fair.round_number}'s cards are the order its seeds give`
      : `NOT VERIFIED: ${check.lines[check.lines.length - 1]}`;
    result.className = `fair-result ${check.ok ? "fair-ok" : "fair-bad"}`;
    el("table-verify-lines").replaceChildren(...check.lines.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }));
  }

  private countdown(deadline: string | null): void {
    window.clearInterval(this.timer);
    const out = el("table-timer");
    if (!deadline) {
      out.textContent = "";
      return;
    }
    const end = Date.parse(deadline);
    const tick = () => {
      const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      out.textContent = `${left} s left`;
    };
    tick();
    this.timer = window.setInterval(tick, 1000);
  }

  private renderControls(snap: Json, mine: number | undefined): void {
    const betting = snap.phase === "idle" || snap.phase === "betting";
    el("table-bet").hidden = !(betting && mine !== undefined);
    const others = snap.seats.filter((s: Json) => s.seat !== mine).map((s: Json) => s.seat);
    el("table-behind").hidden = !(betting && others.length > 0);
    const seatSelect = el<HTMLSelectElement>("behind-seat");
    const chosen = seatSelect.value;
    seatSelect.replaceChildren(...others.map((s: number) => new Option(`Seat ${s}`, String(s))));
    if (others.map(String).includes(chosen)) seatSelect.value = chosen;
    const acts = el("table-actions");
    const buttons: HTMLButtonElement[] = [];
    const round = snap.round;
    if (betting && snap.bets.some((b: Json) => b.seat === mine)) {
      buttons.push(this.button("Deal Now", () => this.client.dealNow({
        requestId: newRequestId(), tableId: this.tableId, forcedCards: this.hooks.forcedCards })));
    }
    if (round && mine !== undefined) {
      const box = round.boxes.find((x: Json) => x.seat === mine);
      for (const a of box?.insurance_allowed ?? []) {
        const take = a.action === "insure";
        buttons.push(this.button(take ? `Take insurance (${this.money(a.cost)})` : "No insurance",
          () => this.client.decideInsurance({ requestId: newRequestId(), tableId: this.tableId,
            roundId: snap.round_id, seat: mine, take }), a));
      }
      if (round.to_act && round.to_act[0] === mine) {
        const hand = box?.hands.find((h: Json) => h.index === round.to_act[1]);
        for (const a of hand?.allowed ?? []) {
          const fair = a.fair_value > 0 ? `, fair value ${this.money(a.fair_value)}` : "";
          const cost = a.cost > 0 ? ` (${this.money(a.cost)})`
            : a.offer > 0 ? ` (${this.money(a.offer)}${fair})` : "";
          buttons.push(this.button(`${ACTION_WORDS[a.action] ?? a.action}${cost}`,
            () => this.client.act({ requestId: newRequestId(), tableId: this.tableId,
              roundId: snap.round_id, seat: mine, hand: round.to_act[1], action: a.action }), a));
        }
      }
    }
    const myBehind = snap.behind.filter((b: Json) => b.player_id === this.playerId
                                         && b.insurance === "ask");
    if (round && snap.phase === "insurance") {
      for (const b of myBehind) {
        buttons.push(this.button(`Insure my Bet Behind on seat ${b.seat}`, () =>
          this.client.decideInsurance({ requestId: newRequestId(), tableId: this.tableId,
            roundId: snap.round_id, seat: b.seat, take: true, behind: true })));
      }
    }
    if (mine !== undefined && snap.phase !== "playing" && !snap.bets.some((b: Json) => b.seat === mine)) {
      buttons.push(this.button("Leave the seat", () => this.client.leaveSeat(
        { requestId: newRequestId(), tableId: this.tableId, seat: mine })));
    }
    acts.replaceChildren(...buttons);
  }

  /** A command button; ``decision`` (an allowed action of the snapshot's round) adds its value
   * and best mark when the player's brand shows hints (the snapshot then carries them). */
  private button(label: string, call: () => Promise<unknown>, decision?: Json): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    labelDecision(b, label, decision?.expected_value, decision?.best === true);
    if (decision) b.dataset.action = decision.action;
    b.addEventListener("click", () => void this.command(call));
    return b;
  }

  /** A command; its answer carries the table's snapshot, drawn at once. */
  async command(call: () => Promise<unknown>): Promise<void> {
    this.hooks.clearError();
    try {
      const answer = (await call()) as { result?: table.TableCommandResult };
      const snap = answer.result?.snapshot;
      if (snap?.stateJson) this.render(JSON.parse(snap.stateJson));
      await this.hooks.refreshBalance();
    } catch (error) {
      this.hooks.showError(error);
    }
  }

  placeBet(): void {
    const mine = this.mySeat();
    const stake = parseMoney(el<HTMLInputElement>("table-stake").value);
    if (mine === undefined || stake === undefined) {
      this.hooks.showError(new Error("Enter the bet as an amount, e.g. 10.00"));
      return;
    }
    const side = (id: string) => parseMoney(el<HTMLInputElement>(id).value || "0") ?? 0n;
    const clientSeed = el<HTMLInputElement>("table-seed").value;
    const problem = clientSeedProblem(clientSeed);
    if (problem) {
      this.hooks.showError(new Error(`Client seed: ${problem}.`));
      return;
    }
    // The first bet opens betting with the commitment shown now (the idle table's next one).
    const shown = this.idleCommitment;
    void this.command(async () => {
      const answer = await this.client.placeBets({ requestId: newRequestId(), tableId: this.tableId,
        clientSeed,
        bets: [create(table.BetSchema, { seat: mine, stake, perfectPairs: side("table-pp"),
                                          twentyOnePlusThree: side("table-213") })] });
      const state = JSON.parse(answer.result?.snapshot?.stateJson ?? "{}");
      if (state.round_id && shown && !this.shownCommitments.has(state.round_id)) {
        this.shownCommitments.set(state.round_id, shown);
      }
      return answer;
    });
  }

  placeBehind(): void {
    const seat = Number(el<HTMLSelectElement>("behind-seat").value);
    const stake = parseMoney(el<HTMLInputElement>("behind-stake").value);
    if (!seat || stake === undefined) {
      this.hooks.showError(new Error("Pick a seat and enter the Bet Behind as an amount"));
      return;
    }
    void this.command(() => this.client.placeBets({ requestId: newRequestId(), tableId: this.tableId,
      bets: [create(table.BetSchema, {
        seat, stake, behind: true,
        followDouble: el<HTMLInputElement>("behind-double").checked,
        followSplit: el<HTMLInputElement>("behind-split").checked,
        insurance: INSURANCE[el<HTMLSelectElement>("behind-insurance").value] ?? table.BehindInsurance.NEVER,
      })] }));
  }
}

/** Show the shared tables of the session's brand (nothing when it offers none). */
export async function startTables(token: string, hooks: Hooks): Promise<void> {
  const view = new TableView(token, hooks);
  el<HTMLFormElement>("table-bet").addEventListener("submit", (e) => {
    e.preventDefault();
    view.placeBet();
  });
  el("table-verify").addEventListener("click", () => view.verifyLast());
  el<HTMLFormElement>("table-behind").addEventListener("submit", (e) => {
    e.preventDefault();
    view.placeBehind();
  });
  try {
    await view.list();
  } catch (error) {
    hooks.showError(error);
  }
}
