// Cards drawn as cards: rank and suit symbol, red or black, with a spoken name.

const SUITS: Record<string, [string, string, boolean]> = {
  S: ["♠", "spades", false],
  H: ["♥", "hearts", true],
  D: ["♦", "diamonds", true],
  C: ["♣", "clubs", false],
};
const RANKS: Record<string, [string, string]> = {
  A: ["A", "Ace"], K: ["K", "King"], Q: ["Q", "Queen"], J: ["J", "Jack"], T: ["10", "10"],
};

/** A card code (`TS`, `AH`, `7C`) as a list item showing the card. */
export function cardElement(code: string): HTMLLIElement {
  const rank = code.slice(0, -1);
  const [symbol, suitName, red] = SUITS[code.slice(-1)] ?? ["?", "unknown suit", false];
  const [shown, spoken] = RANKS[rank] ?? [rank, rank];
  const li = document.createElement("li");
  li.className = `card${red ? " red" : ""}`;
  li.setAttribute("aria-label", `${spoken} of ${suitName}`);
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
  li.setAttribute("aria-label", "Face-down card");
  return li;
}
