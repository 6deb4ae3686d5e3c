// Money: integer minor units (bigint) on the wire, major units (two decimals) on the screen.

/** `100050n` → `1,000.50 EUR` (or `1,000.50` without a currency): thousands grouped by
 * commas, as the terminal client writes amounts. */
export function formatMoney(minor: bigint, currency: string, withCurrency = true): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const text = `${negative ? "-" : ""}${whole}.${(abs % 100n).toString().padStart(2, "0")}`;
  return withCurrency && currency ? `${text} ${currency}` : text;
}

/** `"10.5"` → `1050n`; undefined when the text is not an amount with at most two decimals. */
export function parseMoney(text: string): bigint | undefined {
  const m = /^\s*(\d{1,12})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return undefined;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0"));
}
