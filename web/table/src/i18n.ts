// The table's language: its words from the catalogues (services/rgs/locales/<lang>.json, the
// one home of the words the web table and `rgs play` show, bundled in) and amounts written by
// Intl.NumberFormat in the locale (German `1.000,00 €`, Spanish `1000,00 €`, English
// `€1,000.00`).
//
// The language is the page's `<html lang>` when set (a launch sets it before the table
// renders), else the browser's, else English; read at every call, so a change of
// `document.documentElement.lang` shows at the next render. Adding a language: a JSON file
// with English's keys and a line in CATALOGUES (docs/studio-guide.md, "Languages").

import en from "../../../services/rgs/locales/en.json";
import de from "../../../services/rgs/locales/de.json";
import es from "../../../services/rgs/locales/es.json";

type Catalogue = typeof en;
export type WebKey = keyof Catalogue["web"];

// Typed as English's: a catalogue missing a key of English's fails the build.
const CATALOGUES: Record<string, Catalogue> = { en, de, es };

/** The languages the catalogues speak, English first. */
export const LANGUAGES: readonly string[] = Object.keys(CATALOGUES);

/** The first of `tags` (BCP 47: `de-AT`, `es`) a catalogue speaks, by primary tag; `en` when
 * none does. */
export function firstSpoken(tags: readonly (string | null | undefined)[]): string {
  for (const tag of tags) {
    const primary = (tag ?? "").toLowerCase().split(/[-_]/)[0];
    if (primary && primary in CATALOGUES) return primary;
  }
  return "en";
}

/** The browser's languages, most wanted first. */
export function browserLanguages(): string[] {
  return [...(navigator.languages ?? []), navigator.language];
}

/** The language spoken now: `<html lang>`, else the browser's, else `en` (by primary tag). */
export function language(): string {
  return firstSpoken([document.documentElement.lang, ...browserLanguages()]);
}

/** A language's own name (`Deutsch`), for a choice of language. */
export function languageName(lang: string): string {
  return (CATALOGUES[lang] ?? en).language.name;
}

const catalogue = (): Catalogue => CATALOGUES[language()] ?? en;

/** The BCP 47 locale Intl formats with (`de-DE`). */
export function intlLocale(): string {
  return catalogue().language.intl_locale;
}

const fill = (text: string, values: Record<string, string | number>): string =>
  text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all));

/** The words for `key`, placeholders (`{name}`) filled. */
export function t(key: WebKey, values: Record<string, string | number> = {}): string {
  return fill(catalogue().web[key] ?? en.web[key] ?? key, values);
}

/** A plural: `key_one` or `key_other` by the locale's rule for `n` (`{n}` filled). */
export function tn(key: string, n: number, values: Record<string, string | number> = {}): string {
  const form = new Intl.PluralRules(intlLocale()).select(n) === "one" ? "one" : "other";
  return t(`${key}_${form}` as WebKey, { n, ...values });
}

/** A word by a key made at run time (`action.HIT`), undefined when the catalogue has none. */
export function word(key: string): string | undefined {
  const web = catalogue().web as Record<string, string>;
  return web[key] ?? (en.web as Record<string, string>)[key];
}

/** The sentence for an ErrorInfo reason, undefined for a reason no catalogue knows. */
export function reasonText(reason: string): string | undefined {
  const reasons = catalogue().reasons as Record<string, string>;
  return reasons[reason] ?? (en.reasons as Record<string, string>)[reason];
}

/** Put the words in the page: every `[data-i18n]` element's text, `[data-i18n-label]`'s
 * aria-label and the page's title (`titleKey`). Called at start (and again after a change of
 * language). */
export function localizePage(root: ParentNode = document, titleKey: WebKey = "page.title"): void {
  for (const node of root.querySelectorAll<HTMLElement>("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n as WebKey);
  }
  for (const node of root.querySelectorAll<HTMLElement>("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel as WebKey));
  }
  document.title = t(titleKey);
}

/** Put the words in the page now and again whenever `<html lang>` changes (a launch may set
 * it after the page started). The page ships without a `lang` so that the browser's language
 * counts; the one spoken is then written on `<html>` (for assistive technology). */
export function followLanguage(): void {
  if (!document.documentElement.lang) document.documentElement.lang = language();
  localizePage();
  new MutationObserver(() => localizePage())
    .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
