// Cards drawn as cards: rank and suit symbol, red or black, with a spoken name in the page's
// language (the catalogue's `card.*`: "Ace of spades", "Pik Ass", "As de picas").

import { t, word } from "./i18n.js";

const SUITS: Record<string, [string, boolean]> = {
  S: ["♠", false], H: ["♥", true], D: ["♦", true], C: ["♣", false],
};
const RANKS: Record<string, string> = { A: "A", K: "K", Q: "Q", J: "J", T: "10" };

/** A card code (`TS`, `AH`, `7C`) as a list item showing the card. */
export function cardElement(code: string): HTMLLIElement {
  const rank = code.slice(0, -1);
  const [symbol, red] = SUITS[code.slice(-1)] ?? ["?", false];
  const shown = RANKS[rank] ?? rank;
  const spoken = word(`card.${rank}`) ?? shown;
  const suitName = word(`card.${code.slice(-1)}`) ?? t("card.unknown_suit");
  const li = document.createElement("li");
  li.className = `card${red ? " red" : ""}`;
  li.setAttribute("aria-label", t("card.name", { rank: spoken, suit: suitName }));
  li.dataset.card = code;
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  corner.append(shown, document.createElement("br"), symbol);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = symbol;
  li.append(corner, pip);
  return li;
}

/** The dealer's face-down hole card. */
export function hiddenCard(): HTMLLIElement {
  const li = document.createElement("li");
  li.className = "card back";
  li.setAttribute("aria-label", t("card.face_down"));
  return li;
}
