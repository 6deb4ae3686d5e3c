// The table after the first N steps of a recalled round (the operator's RoundRecord in
// protobuf JSON): the dealer's cards, each seat's hands with their stakes, decisions and
// results. Pure, and without words: the page says what this computes in its language.

/** One recall step (RoundStep in protobuf JSON: defaults are left out, int64 are strings). */
export interface Step {
  index?: number;
  kind?: string;
  seat?: number;
  hand?: number;
  card?: string;
  action?: string;
  amount?: string;
  detailJson?: string;
}

export interface HandState {
  cards: string[];
  stake: bigint;
  doubled: boolean;
  fromSplit: boolean;
  outcome: string;
  payout: bigint | undefined;
}

/** A settled side bet or insurance of a seat: its kind (`perfect_pairs`, or `insurance`),
 * its paytable line (`mixed`, empty when it lost) and what it paid. */
export interface SideBetState {
  kind: string;
  line: string;
  payout: bigint;
}

export interface SeatState {
  seat: number;
  /** The player as the recall names them; empty when it does not. */
  name: string;
  hands: HandState[];
  sideBets: SideBetState[];
}

export interface TableState {
  dealer: { card: string; faceDown: boolean }[];
  seats: Map<number, SeatState>;
  notes: string[];
}

type Detail = Record<string, unknown>;

export function detailOf(step: Step): Detail {
  try {
    const parsed: unknown = JSON.parse(step.detailJson ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Detail) : {};
  } catch {
    return {};
  }
}

const big = (value: unknown): bigint => {
  if (typeof value === "number" || typeof value === "string") {
    try {
      return BigInt(value);
    } catch {
      return 0n;
    }
  }
  return 0n;
};

/** The name a table shows for a player object of a step (a table round's TablePlayer, or a
 * solo round's player id); empty when it has none. */
export function nameOf(player: unknown): string {
  if (typeof player === "string" && player) return player;
  if (player && typeof player === "object") {
    const p = player as Detail;
    const shown = String(p.display_name ?? "");
    const id = String(p.player_id ?? "");
    if (shown && id) return `${shown} (${id})`;
    if (shown || id) return shown || id;
  }
  return "";
}

function seatOf(state: TableState, seat: number): SeatState {
  let found = state.seats.get(seat);
  if (!found) {
    found = { seat, name: "", hands: [], sideBets: [] };
    state.seats.set(seat, found);
  }
  return found;
}

function handOf(state: TableState, seat: number, hand: number): HandState {
  const s = seatOf(state, seat);
  while (s.hands.length <= hand) {
    s.hands.push({ cards: [], stake: 0n, doubled: false, fromSplit: false, outcome: "", payout: undefined });
  }
  return s.hands[hand];
}

/** Whether the step deals to the dealer (a solo step's seat 0, a table event's unset seat). */
function toDealer(step: Step, detail: Detail): boolean {
  return !step.seat && (detail.seat === undefined || detail.seat === null || detail.seat === 0);
}

/** Apply one step to the state. */
export function apply(state: TableState, step: Step): void {
  const d = detailOf(step);
  const seat = step.seat ?? 0;
  const hand = step.hand ?? 0;
  switch (step.kind) {
    case "round_started": {
      const boxes = Array.isArray(d.boxes) ? (d.boxes as Detail[]) : [];
      for (const box of boxes) {
        const n = Number(box.seat ?? 0);
        const s = seatOf(state, n);
        s.name = nameOf(box.player);
        handOf(state, n, 0).stake = big(box.stake);
      }
      const seats = Array.isArray(d.seats) ? (d.seats as unknown[]) : [];
      const players = Array.isArray(d.players) ? (d.players as unknown[]) : [];
      seats.forEach((n, i) => {
        seatOf(state, Number(n)).name = nameOf(players[i]);
      });
      break;
    }
    case "bet_placed": {
      const n = Number(d.seat ?? seat);
      if (d.player) seatOf(state, n).name = nameOf(d.player);
      const stake = big(d.stake ?? d.amount ?? step.amount);
      if (stake) handOf(state, n, 0).stake = stake;
      break;
    }
    case "card_dealt":
      if (toDealer(step, d)) state.dealer.push({ card: step.card ?? "", faceDown: Boolean(d.face_down) });
      else handOf(state, seat, hand).cards.push(step.card ?? "");
      break;
    case "hole_card_revealed": {
      const hidden = state.dealer.find((c) => c.faceDown);
      if (hidden) {
        hidden.faceDown = false;
        hidden.card = step.card || hidden.card;
      } else state.dealer.push({ card: step.card ?? "", faceDown: false });
      break;
    }
    case "player_acted": {
      const cost = big(step.amount);
      const h = handOf(state, seat, hand);
      if (step.action === "split" || step.action === "power_split") {
        const moved = h.cards.pop();
        h.fromSplit = true;
        seatOf(state, seat).hands.splice(hand + 1, 0, {
          cards: moved ? [moved] : [], stake: cost, doubled: false, fromSplit: true, outcome: "", payout: undefined,
        });
      } else if (cost) {
        h.stake += cost;
        if (step.action === "double" || step.action === "power_double") h.doubled = true;
      }
      break;
    }
    case "hand_settled": {
      const h = handOf(state, seat, hand);
      h.outcome = String(d.outcome ?? "").replace(/^OUTCOME_/, "").toLowerCase();  // a table's enum name
      h.payout = big(step.amount);
      if (d.stake !== undefined) h.stake = big(d.stake);  // a table round's stakes show here
      break;
    }
    case "side_bet_settled":
    case "insurance_settled":
      seatOf(state, seat).sideBets.push({
        kind: step.kind === "insurance_settled" ? "insurance" : String(d.kind ?? ""),
        line: String(d.line ?? ""), payout: big(step.amount),
      });
      break;
    default:
      break;
  }
}

/** The table after the first ``count`` steps. */
export function stateAfter(steps: readonly Step[], count: number): TableState {
  const state: TableState = { dealer: [], seats: new Map(), notes: [] };
  for (const step of steps.slice(0, count)) apply(state, step);
  return state;
}

/** The hand total as the table counts it (soft: an ace counted 11 because it fits). */
export function total(cards: readonly string[]): { value: number; soft: boolean } {
  let sum = 0;
  let aces = 0;
  for (const c of cards) {
    const r = c.slice(0, -1);
    if (r === "A") {
      aces += 1;
      sum += 1;
    } else sum += ["T", "J", "Q", "K"].includes(r) ? 10 : Number(r) || 0;
  }
  return aces && sum + 10 <= 21 ? { value: sum + 10, soft: true } : { value: sum, soft: false };
}
