// Money: integer minor units (bigint) on the wire, the locale's way on the screen
// (Intl.NumberFormat: `1.000,50 €` in German, `€1,000.50` in English).

import { intlLocale } from "./i18n.js";

const major = (minor: bigint): number => Number(minor) / 100;

/** `100050n` → `€1,000.50` in English, `1.000,50 €` in German; without a currency (an input
 * field's value) the number alone, ungrouped: `1000,50`. */
export function formatMoney(minor: bigint, currency: string, withCurrency = true): string {
  if (withCurrency && currency) {
    return new Intl.NumberFormat(intlLocale(), { style: "currency", currency }).format(major(minor));
  }
  return new Intl.NumberFormat(intlLocale(), {
    minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false,
  }).format(major(minor));
}

/** The locale's group and decimal separators (`.` and `,` in German). */
function separators(): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(intlLocale()).formatToParts(12345.6);
  return {
    group: parts.find((p) => p.type === "group")?.value ?? ",",
    decimal: parts.find((p) => p.type === "decimal")?.value ?? ".",
  };
}

/** `"10.5"` or, in German, `"1.000,50"` → minor units; undefined when the text is not an
 * amount with at most two decimals. A point or a comma before the last one or two digits is
 * a decimal separator in every language; otherwise the locale's group separators are
 * dropped. */
export function parseMoney(text: string): bigint | undefined {
  let s = text.trim().replace(/[\s\u00a0\u202f]/g, "");
  const simple = /^(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!simple) {
    const { group, decimal } = separators();
    s = s.split(group).join("").split(decimal).join(".");
  }
  const m = /^(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) return undefined;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0"));
}
