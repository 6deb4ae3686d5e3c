// Shared tables: list the tables the brand offers, watch one (a server stream of numbered
// events, resumed from the last number after a disconnect), sit, bet (Bet Behind on another
// seat with its presets), Deal Now, decide, insurance. Everything is drawn from the table's
// typed snapshot (rgs.table.v1.TableSnapshot); which seat and bets are the player's own is the
// server's word (`TablePlayer.you`). A finished round stays on the table until the next round's
// first card.

import {
  Action,
  HandStatus,
  RoundStatus,
  SideBetKind,
  clientSeedProblem,
  create,
  createTableClient,
  newRequestId,
  table,
  verifyTableRound,
  type AllowedAction,
  type FreeBet,
  type RoundView,
  type TableClient,
  type TableFairness,
} from "@rgs/client";
import { cardElement, hiddenCard } from "./cards.js";
import { describeError } from "./errors.js";
import { markResult, offerRealityCheck, renderPosition } from "./market.js";
import { historyLine } from "./history.js";
import { labelDecision } from "./hints.js";
import { formatMoney, parseMoney } from "./money.js";
import { ACTION_LABELS, HAND_WORDS, OUTCOME_WORDS, SIDE_BET_NAMES } from "./words.js";
import { t as tr, tn, word } from "./i18n.js";
import { chosenFreeBet, fillFreeBets } from "./freebets.js";

interface Hooks {
  currency: string;
  refreshBalance: () => Promise<void>;
  forcedCards: string[];
}

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

/** The table's phase in words (`shared.phase.BETTING`). */
const phaseWord = (phase: table.TablePhase): string =>
  word(`shared.phase.${table.TablePhase[phase]}`) ?? tr("shared.phase.IDLE");

/** The action as the API's ActRequest names it (`hit`, `cash_out`, ...). */
const actionName = (a: Action): string => Action[a].toLowerCase();

/** When to read the balance again after a round ends (ms): the outbox pays within a second on a
 * healthy replica, and retries a wallet that is slow. */
const BALANCE_FOLLOW_UP_MS = [500, 1500, 4000, 10000];

class TableView {
  private client: TableClient;
  private tableId = "";
  private info?: table.TableInfo;
  private lastSeq?: bigint;
  private snap?: table.TableSnapshot;
  private abort?: AbortController;
  private refreshing = false;
  private refreshAgain = false;
  private timer?: number;
  private balanceTimers: number[] = [];
  /** The player's free bets this table takes, as the last snapshot listed them. */
  private freeBets: FreeBet[] = [];
  /** The commitment this page showed for each round while its bets were open (round id ->
   * commitment), and the next round's (shown while the table is idle). */
  private shownCommitments = new Map<string, string>();
  private idleCommitment = "";
  private lastRound?: { roundId: string; fair: TableFairness };

  constructor(token: string, private hooks: Hooks) {
    this.client = createTableClient({ baseUrl: window.location.origin, sessionToken: token });
  }

  private currency(): string {
    return this.info?.currency ?? this.hooks.currency;
  }

  /** A hand's word at a shared table: only the hand the dealer is waiting on is anyone's turn. */
  private handWord(status: HandStatus, toAct: boolean, yours: boolean): string {
    if (status !== HandStatus.ACTIVE && status !== HandStatus.POWER_CHOICE) return HAND_WORDS[status] ?? "";
    if (!toAct) return tr("shared.waiting_turn");
    if (!yours) return tr("shared.to_act");
    return tr(status === HandStatus.POWER_CHOICE ? "shared.your_turn_power" : "shared.your_turn");
  }

  private money(minor: bigint): string {
    return formatMoney(minor, this.currency());
  }

  async list(): Promise<void> {
    const listed = await this.client.listTables({});
    const ul = el<HTMLUListElement>("table-list");
    ul.replaceChildren(...listed.tables.map((t) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = tr("shared.watch", { id: t.tableId });
      b.dataset.table = t.tableId;
      b.addEventListener("click", () => void this.watch(t));
      li.append(b, ` ${tr("shared.entry", { variant: t.variantId, seats: t.seats,
        min: formatMoney(t.mainMin, t.currency), max: formatMoney(t.mainMax, t.currency) })}`);
      return li;
    }));
    el("shared").hidden = false;
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
        // In batches: a table busy with Bet Behinds sends a few messages, not hundreds.
        for await (const item of this.client.watchTable(
          { tableId: this.tableId, fromSeq: this.lastSeq, batchEvents: true },
          { signal: abort.signal })) {
          if (item.item.case === "snapshot") {
            this.lastSeq = item.item.value.seq;
            this.render(item.item.value);
          } else if (item.item.case === "events" || item.item.case === "event") {
            const events = item.item.case === "events" ? item.item.value.events
              : [item.item.value];
            for (const ev of events) {
              this.lastSeq = ev.seq;
              this.onEvent(ev);
            }
            void this.refresh();
          }
        }
      } catch {
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
            if (item.item.case === "snapshot") this.render(item.item.value);
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

  private onEvent(ev: table.TableEvent): void {
    const line = historyLine(ev, this.currency());
    if (line) {
      const log = el<HTMLOListElement>("table-events");
      const li = document.createElement("li");
      li.textContent = line.text;
      if (line.mine) li.className = "mine";
      log.prepend(li);
      while (log.children.length > 30) log.lastElementChild?.remove();
    }
    const e = ev.event;
    if (e.case === "roundFinished" || e.case === "behindRefunded") this.followPayments();
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
    return this.snap?.seats.find((s) => s.player?.you)?.seat;
  }

  render(snap: table.TableSnapshot): void {
    if (this.snap && snap.seq < this.snap.seq) return; // an answer older than what is drawn
    this.snap = snap;
    // The last round stays on the table, as it ended, until the next one is dealt.
    const finished = !snap.round ? snap.lastRound?.round : undefined;
    const round = snap.round ?? finished;
    el("table-phase").textContent = tr("shared.phase_line", { n: String(snap.roundNo), phase: phaseWord(snap.phase) })
      + (finished ? tr("shared.last_stays") : "");
    this.countdown(snap.deadline ? Number(snap.deadline.seconds) * 1000 : undefined);
    const mine = this.mySeat();
    const ul = el<HTMLUListElement>("table-seats");
    const seats = this.info?.seats ?? 7;
    ul.style.setProperty("--seats", String(seats));
    const items: HTMLLIElement[] = [];
    for (let n = 1; n <= seats; n++) items.push(this.seatItem(snap, round, n, mine));
    ul.replaceChildren(...items);
    const dealer = el<HTMLUListElement>("table-dealer");
    dealer.replaceChildren(...(round?.dealerCards ?? []).map((c) => cardElement(c)));
    if (round?.dealerHoleHidden) dealer.append(hiddenCard());
    el("table-dealer-total").textContent = round
      ? `(${round.dealerSoft ? tr("table.soft", { n: round.dealerTotal }) : round.dealerTotal})` : "";
    const result = el("table-result");
    const net = finished ? finished.totalPaid - finished.totalStaked : 0n;
    result.textContent = finished && finished.totalStaked > 0n
      ? tr("shared.net", { net: `${net > 0n ? "+" : ""}${this.money(net)}` }) : "";
    markResult(result, finished && finished.totalStaked > 0n ? finished.result : undefined);
    renderPosition(snap.session);
    this.renderFairness(snap);
    this.renderControls(snap, mine);
  }

  private seatItem(snap: table.TableSnapshot, round: RoundView | undefined, n: number,
                   mine: number | undefined): HTMLLIElement {
    const li = document.createElement("li");
    li.className = "seat";
    li.dataset.seat = String(n);
    li.style.setProperty("--i", String(n - 1));
    const sat = snap.seats.find((s) => s.seat === n);
    const head = document.createElement("h4");
    head.textContent = sat
      ? tr("shared.seat_player", { n, name: `${sat.player?.displayName ?? ""}${sat.player?.you ? tr("shared.you_mark") : ""}` })
      : tr("shared.seat_free", { n });
    if (sat?.player?.you) li.classList.add("mine");
    li.append(head);
    if (sat?.leaving) {
      const p = document.createElement("p");
      p.className = "seat-note";
      p.textContent = tr(sat.player?.you ? "shared.leaving_you" : "shared.leaving_other");
      li.append(p);
    }
    const limit = this.info?.sitOutRounds ?? 0;
    if (sat?.player?.you && sat.satOut > 0 && limit > 0) {
      const left = limit - sat.satOut;
      const p = document.createElement("p");
      p.className = "seat-note";
      p.textContent = tr("shared.sat_out_line", { sat: tn("shared.sat_out", sat.satOut), keep: tn("shared.keep_seat", left) });
      li.append(p);
    }
    if (sat && sat.hot > 0) {
      const hot = document.createElement("p");
      hot.className = "hot";
      hot.textContent = tr("shared.hot", { n: sat.hot });
      li.append(hot);
    }
    const bet = snap.bets.find((b) => b.seat === n);
    if (bet) {
      const p = document.createElement("p");
      const sides = ([[SideBetKind.PERFECT_PAIRS, bet.perfectPairs], [SideBetKind.TWENTY_ONE_PLUS_THREE, bet.twentyOnePlusThree],
                      [SideBetKind.TWENTY_PLUS, bet.twentyPlus]] as const).filter(([, v]) => v > 0n)
        .map(([k, v]) => `${SIDE_BET_NAMES[k]} ${this.money(v)}`);
      p.textContent = tr("shared.bet_line", { stake: this.money(bet.stake), sides: sides.length ? `, ${sides.join(", ")}` : "" })
        + (bet.dealNow ? tr("shared.ready") : "");
      li.append(p);
    }
    const total = snap.behindTotals.find((x) => x.seat === n);
    if (total) {  // every player's Bet Behinds on the seat together (yours are listed below)
      const p = document.createElement("p");
      p.className = "behind";
      p.textContent = tr("shared.behind_totals", { n: String(total.bettors), staked: this.money(total.staked) });
      li.append(p);
    }
    for (const b of snap.behind.filter((x) => x.seat === n)) {
      const p = document.createElement("p");
      p.className = b.player?.you ? "behind mine" : "behind";
      p.textContent = tr("shared.behind_line", { who: b.player?.you ? tr("shared.you") : b.player?.displayName ?? "", stake: this.money(b.stake) });
      li.append(p);
    }
    const box = round?.boxes.find((x) => x.seat === n);
    for (const h of box?.hands ?? []) {
      const cards = document.createElement("ul");
      cards.className = "cards";
      cards.setAttribute("aria-label", tr("shared.seat_hand", { n, h: h.index + 1 }));
      cards.append(...h.cards.map((c) => cardElement(c)));
      const toAct = round?.toAct && round.toAct.seat === n && round.toAct.hand === h.index;
      const info = document.createElement("p");
      info.className = "hand-info";
      info.textContent = `${h.soft ? tr("table.soft", { n: h.total }) : h.total}, ${this.handWord(h.status, !!toAct, !!sat?.player?.you)}`
        + (h.outcome ? `, ${tr("shared.paid", { outcome: OUTCOME_WORDS[h.outcome] ?? "", paid: this.money(h.payout) })}` : "");
      if (toAct) li.classList.add("to-act");
      li.append(cards, info);
    }
    for (const b of box?.behind ?? []) {
      if (b.paid === 0n && b.staked === 0n) continue;
      const p = document.createElement("p");
      p.className = b.you ? "behind mine" : "behind";
      p.textContent = tr(b.you ? "shared.behind_staked_you" : "shared.behind_staked_other", { who: b.displayName, staked: this.money(b.staked) })
        + (b.paid > 0n || round?.status === RoundStatus.SETTLED ? tr("shared.behind_paid", { paid: this.money(b.paid) }) : "");
      li.append(p);
    }
    if (!sat && mine === undefined && snap.phase !== table.TablePhase.PLAYING) {
      li.append(this.button(tr("shared.sit", { n }), () => this.client.takeSeat(
        { requestId: newRequestId(), tableId: this.tableId, seat: n })));
    }
    return li;
  }

  /** The commitment while a round's bets are open or it is played (the next one when idle),
   * and the last finished round's revealed seed with a Verify button. */
  private renderFairness(snap: table.TableSnapshot): void {
    const line = el("table-commitment-line");
    const fair = snap.fair;
    if (fair && fair.commitment) {
      if (snap.phase === table.TablePhase.BETTING && snap.roundId && !this.shownCommitments.has(snap.roundId)) {
        this.shownCommitments.set(snap.roundId, fair.commitment);
      }
      el("table-commitment-label").textContent = tr("shared.commitment_round", { n: String(fair.roundNumber) });
      el("table-commitment").textContent = fair.commitment;
      line.hidden = false;
    } else if (snap.nextCommitment) {
      this.idleCommitment = snap.nextCommitment;
      el("table-commitment-label").textContent = tr("shared.commitment_next");
      el("table-commitment").textContent = snap.nextCommitment;
      line.hidden = false;
    } else {
      line.hidden = true;
    }
    const last = snap.lastRound;
    if (last?.fair?.serverSeed) {
      if (this.lastRound?.roundId !== last.roundId) {
        el("table-verify-result").textContent = "";
        el("table-verify-lines").replaceChildren();
      }
      this.lastRound = { roundId: last.roundId, fair: last.fair };
      el("table-last-round").textContent = last.roundId;
      el("table-last-seed").textContent = last.fair.serverSeed;
      el("table-last").hidden = false;
    }
  }

  /** Verify the last finished round here, in the browser (docs/rng.md), and say so in words. */
  verifyLast(): void {
    const last = this.lastRound;
    if (!last) return;
    const check = verifyTableRound(last.fair, this.shownCommitments.get(last.roundId));
    const result = el("table-verify-result");
    result.textContent = check.ok ? tr("shared.fair_ok", { n: String(last.fair.roundNumber) })
      : tr("shared.fair_bad", { why: check.lines[check.lines.length - 1] ?? "" });
    result.className = `fair-result ${check.ok ? "fair-ok" : "fair-bad"}`;
    el("table-verify-lines").replaceChildren(...check.lines.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }));
  }

  private countdown(endMs: number | undefined): void {
    window.clearInterval(this.timer);
    const out = el("table-timer");
    if (endMs === undefined) {
      out.textContent = "";
      return;
    }
    const tick = () => {
      const left = Math.max(0, Math.ceil((endMs - Date.now()) / 1000));
      out.textContent = tr("shared.left", { s: left });
    };
    tick();
    this.timer = window.setInterval(tick, 1000);
  }

  private renderControls(snap: table.TableSnapshot, mine: number | undefined): void {
    const betting = snap.phase === table.TablePhase.IDLE || snap.phase === table.TablePhase.BETTING;
    el("table-bet").hidden = !(betting && mine !== undefined);
    this.freeBets = snap.freeBets;
    fillFreeBets(el<HTMLSelectElement>("table-free-bet"), el("table-free-bet-field"), snap.freeBets,
                 (amount) => this.money(amount));
    const others = snap.seats.filter((s) => s.seat !== mine).map((s) => s.seat);
    el("table-behind").hidden = !(betting && others.length > 0);
    const seatSelect = el<HTMLSelectElement>("behind-seat");
    const chosen = seatSelect.value;
    seatSelect.replaceChildren(...others.map((s) => new Option(tr("shared.seat", { n: s }), String(s))));
    if (others.map(String).includes(chosen)) seatSelect.value = chosen;
    const buttons: HTMLButtonElement[] = [];
    const round = snap.round;
    const myBehind = snap.behind.filter((b) => b.player?.you);
    const seatBet = snap.bets.some((b) => b.seat === mine);
    if (snap.phase === table.TablePhase.BETTING && seatBet) {
      buttons.push(this.button(tr("shared.deal_now"), () => this.client.dealNow({
        requestId: newRequestId(), tableId: this.tableId, forcedCards: this.hooks.forcedCards })));
    }
    if (round && mine !== undefined) {
      const box = round.boxes.find((x) => x.seat === mine);
      for (const a of box?.insuranceAllowed ?? []) {
        const take = a.action === Action.INSURE;
        buttons.push(this.button(take ? tr("shared.take_insurance", { cost: this.money(a.cost) }) : tr("table.no_insurance"),
          () => this.client.decideInsurance({ requestId: newRequestId(), tableId: this.tableId,
            roundId: snap.roundId, seat: mine, take }), a));
      }
      const toAct = round.toAct;
      if (toAct && toAct.seat === mine) {
        const hand = box?.hands.find((h) => h.index === toAct.hand);
        for (const a of hand?.allowed ?? []) {
          const fair = a.fairValue > 0n ? `, ${tr("table.fair_value", { value: this.money(a.fairValue) })}` : "";
          const cost = a.cost > 0n ? ` (${this.money(a.cost)})`
            : a.offer > 0n ? ` (${this.money(a.offer)}${fair})` : "";
          buttons.push(this.button(`${ACTION_LABELS[a.action] ?? actionName(a.action)}${cost}`,
            () => this.client.act({ requestId: newRequestId(), tableId: this.tableId,
              roundId: snap.roundId, seat: mine, hand: toAct.hand, action: actionName(a.action) }), a));
        }
      }
    }
    if (round && snap.phase === table.TablePhase.INSURANCE) {
      for (const b of myBehind.filter((x) => x.insurance === table.BehindInsurance.ASK)) {
        if (snap.insurance.some((c) => c.seat === b.seat && c.behind?.you)) continue;
        buttons.push(this.button(tr("shared.insure_behind", { seat: b.seat }), () =>
          this.client.decideInsurance({ requestId: newRequestId(), tableId: this.tableId,
            roundId: snap.roundId, seat: b.seat, take: true, behind: true })));
      }
    }
    const leaving = snap.seats.find((x) => x.seat === mine)?.leaving ?? false;
    if (mine !== undefined && leaving) {
      // Changed one's mind: the seat is taken again (it is still the player's).
      buttons.push(this.button(tr("shared.stay"), () => this.client.takeSeat(
        { requestId: newRequestId(), tableId: this.tableId, seat: mine })));
    } else if (mine !== undefined) {
      // With a bet in play the seat is given back when the round ends; the bet plays on.
      buttons.push(this.button(tr(seatBet ? "shared.leave_after" : "shared.leave"),
        () => this.client.leaveSeat({ requestId: newRequestId(), tableId: this.tableId,
                                      seat: mine })));
    }
    el("table-actions").replaceChildren(...buttons);
  }

  /** A command button; ``decision`` (an allowed action of the snapshot's round) adds its value
   * and best mark when the player's brand shows hints (the snapshot then carries them). */
  private button(label: string, call: () => Promise<unknown>,
                 decision?: AllowedAction): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    labelDecision(b, label, decision?.expectedValue, decision?.best === true);
    if (decision) b.dataset.action = actionName(decision.action);
    b.addEventListener("click", () => void this.command(call, b));
    return b;
  }

  /** A command; its answer carries the table's snapshot, drawn at once. A refusal shows next
   * to the control that caused it, in view, until the next command. */
  async command(call: () => Promise<unknown>, near: HTMLElement): Promise<void> {
    this.clearError();
    try {
      const answer = (await call()) as { result?: table.TableCommandResult };
      const snap = answer.result?.snapshot;
      if (snap) this.render(snap);
      await this.hooks.refreshBalance();
    } catch (error) {
      this.showError(error, near);
    }
  }

  private showError(error: unknown, near: HTMLElement): void {
    if (offerRealityCheck(error)) return;
    const box = el<HTMLParagraphElement>("table-error");
    box.textContent = describeError(error, formatMoney, this.currency());
    box.hidden = false;
    // Beside the control (its form's, for a form's submit button).
    const anchor = near.closest("form") ?? near.closest("li") ?? near.parentElement ?? near;
    anchor.insertAdjacentElement("afterend", box);
    box.scrollIntoView({ block: "nearest" });
  }

  private clearError(): void {
    const box = el<HTMLParagraphElement>("table-error");
    box.hidden = true;
    box.textContent = "";
  }

  placeBet(form: HTMLFormElement): void {
    const mine = this.mySeat();
    // A free bet stakes exactly its value on the seat's main bet.
    const free = chosenFreeBet(el<HTMLSelectElement>("table-free-bet"), this.freeBets);
    const stake = free ? free.value : parseMoney(el<HTMLInputElement>("table-stake").value);
    if (mine === undefined || stake === undefined) {
      this.clearError();
      this.showError(new Error(tr("shared.enter_bet", { example: formatMoney(1000n, "", false) })), form);
      return;
    }
    const side = (id: string) => parseMoney(el<HTMLInputElement>(id).value || "0") ?? 0n;
    const clientSeed = el<HTMLInputElement>("table-seed").value;
    const problem = clientSeedProblem(clientSeed);
    if (problem) {
      this.clearError();
      this.showError(new Error(tr("fair.seed_problem", { problem })), form);
      return;
    }
    // The first bet opens betting with the commitment shown now (the idle table's next one).
    const shown = this.idleCommitment;
    void this.command(async () => {
      const answer = await this.client.placeBets({ requestId: newRequestId(), tableId: this.tableId,
        clientSeed,
        bets: [create(table.BetSchema, { seat: mine, stake, perfectPairs: side("table-pp"),
                                          twentyOnePlusThree: side("table-213"),
                                          freeBetId: free?.grantId ?? "" })] });
      const roundId = answer.result?.snapshot?.roundId;
      if (roundId && shown && !this.shownCommitments.has(roundId)) {
        this.shownCommitments.set(roundId, shown);
      }
      return answer;
    }, form);
  }

  placeBehind(form: HTMLFormElement): void {
    const seat = Number(el<HTMLSelectElement>("behind-seat").value);
    const stake = parseMoney(el<HTMLInputElement>("behind-stake").value);
    if (!seat || stake === undefined) {
      this.clearError();
      this.showError(new Error(tr("shared.enter_behind")), form);
      return;
    }
    void this.command(() => this.client.placeBets({ requestId: newRequestId(), tableId: this.tableId,
      bets: [create(table.BetSchema, {
        seat, stake, behind: true,
        followDouble: el<HTMLInputElement>("behind-double").checked,
        followSplit: el<HTMLInputElement>("behind-split").checked,
        insurance: INSURANCE[el<HTMLSelectElement>("behind-insurance").value] ?? table.BehindInsurance.NEVER,
      })] }), form);
  }
}

/** Show the shared tables of the session's brand (nothing when it offers none). */
export async function startTables(token: string, hooks: Hooks): Promise<void> {
  const view = new TableView(token, hooks);
  const bet = el<HTMLFormElement>("table-bet");
  bet.addEventListener("submit", (e) => {
    e.preventDefault();
    view.placeBet(bet);
  });
  el("table-verify").addEventListener("click", () => view.verifyLast());
  const behind = el<HTMLFormElement>("table-behind");
  behind.addEventListener("submit", (e) => {
    e.preventDefault();
    view.placeBehind(behind);
  });
  try {
    await view.list();
  } catch (error) {
    const box = el<HTMLParagraphElement>("table-error");
    box.textContent = describeError(error, formatMoney, hooks.currency);
    box.hidden = false;
  }
}
