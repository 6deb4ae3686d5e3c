// Provably fair rounds on the table: the commitment to the next round's cards shown before the
// bet, an optional client seed for Deal, and after the round its revealed server seed and a
// Verify button that recomputes the card order here, in the browser, with @rgs/client's
// verifier (docs/rng.md), and says in words whether the round is fair or what differs.

import {
  RoundStatus,
  clientSeedProblem,
  verifyView,
  type RoundView,
  type Variant,
} from "@rgs/client";
import { t, tn } from "./i18n.js";

const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
};

/** What this page showed before each round's bet, kept for reloads (per tab). */
const SHOWN = "rgs.shown-commitment.";

let nextCommitment = "";

/** Show the commitment of the next round's seed under the bet (from ListVariants or the last
 * round's `fair.nextCommitment`). */
export function showNextCommitment(commitment: string): void {
  if (!commitment) return;
  nextCommitment = commitment;
  el("commitment").textContent = commitment;
  el("commitment-line").hidden = false;
}

/** The client seed typed for Deal ("" when none), or an Error saying what is wrong with it. */
export function readClientSeed(): string | Error {
  const seed = el<HTMLInputElement>("client-seed").value;
  const problem = clientSeedProblem(seed);
  return problem ? new Error(t("fair.seed_problem", { problem })) : seed;
}

/** The commitment on screen when the bet is placed, to tie to the round the Deal returns. */
export function commitmentAtBet(): string {
  return nextCommitment;
}

/** Remember that ``commitment`` was shown before the bet of ``roundId``. */
export function rememberShown(roundId: string, commitment: string): void {
  if (commitment) sessionStorage.setItem(SHOWN + roundId, commitment);
}

let current: { round: RoundView; variant?: Variant } | undefined;

/** The round's fairness: its commitment while it is open, its seed and Verify once over. */
export function renderFairness(round: RoundView, variant: Variant | undefined): void {
  const fair = round.fair;
  const box = el("fair");
  const result = el("fair-result");
  const lines = el("fair-lines");
  if (current?.round.roundId !== round.roundId || current.round.seq !== round.seq) {
    result.textContent = "";
    result.className = "fair-result";
    lines.replaceChildren();
  }
  current = { round, variant };
  if (!fair) {
    box.hidden = true;
    return;
  }
  if (fair.nextCommitment) showNextCommitment(fair.nextCommitment);
  box.hidden = false;
  const finished = round.status === RoundStatus.SETTLED || round.status === RoundStatus.VOIDED;
  const seed = el("server-seed");
  const verify = el<HTMLButtonElement>("verify");
  if (!fair.verifiable) {
    el("fair-summary").textContent = t("fair.forced");
    el("fair-details").hidden = true;
    verify.hidden = true;
    return;
  }
  el("fair-details").hidden = false;
  el("round-commitment").textContent = fair.commitment;
  el("round-client-seed").textContent = fair.clientSeed ? `"${fair.clientSeed}"` : t("fair.none");
  el("round-number").textContent = `${fair.roundNumber} (${tn("rules.decks", fair.decks)})`;
  seed.textContent = fair.serverSeed || t("fair.seed_later");
  verify.hidden = !(finished && fair.serverSeed);
  el("fair-summary").textContent = finished && fair.serverSeed
    ? t("fair.revealed")
    : t("fair.fixed");
}

/** Run the verifier on the round shown and say what it found. */
export function verifyShown(): void {
  if (!current) return;
  const { round, variant } = current;
  const shown = sessionStorage.getItem(SHOWN + round.roundId) ?? undefined;
  const check = verifyView(round, { holeCard: variant?.holeCard ?? true, shownCommitment: shown });
  const result = el("fair-result");
  result.className = `fair-result ${check.ok ? "fair-ok" : "fair-bad"}`;
  result.textContent = t(check.ok ? "fair.ok_solo" : "fair.bad_solo");
  const lines = el("fair-lines");
  lines.replaceChildren(...check.lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  if (!shown) {
    const li = document.createElement("li");
    li.textContent = t("fair.not_kept");
    lines.append(li);
  }
}
