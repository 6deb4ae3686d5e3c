// Money: integer minor units (bigint) on the wire, major units (two decimals) on the screen.

/** `1050n` → `10.50 EUR` (or `10.50` without a currency). */
export function formatMoney(minor: bigint, currency: string, withCurrency = true): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const text = `${negative ? "-" : ""}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
  return withCurrency && currency ? `${text} ${currency}` : text;
}

/** `"10.5"` → `1050n`; undefined when the text is not an amount with at most two decimals. */
export function parseMoney(text: string): bigint | undefined {
  const m = /^\s*(\d{1,12})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return undefined;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0"));
}
