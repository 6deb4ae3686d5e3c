// Errors in words: what happened and what the player can do, from the ErrorInfo reason, in the
// page's language (every reason the server can send has a sentence in each catalogue:
// tests/unit/docs/test_reason_translations.py).

import { Code, ConnectError, errorInfo, waitLeftMs } from "@rgs/client";
import { reasonText, t } from "./i18n.js";

type Format = (minor: bigint, currency: string) => string;

/** A sentence for the player about ``error``. */
export function describeError(error: unknown, _format: Format, _currency: string): string {
  if (!(error instanceof ConnectError) && error instanceof Error && !("code" in error)) {
    return error.message;
  }
  const err = ConnectError.from(error);
  const info = errorInfo(err);
  const reason = info?.reason;
  const wait = waitLeftMs(info);
  if (wait > 0) return t("error.wait", { s: Math.ceil(wait / 1000) });
  const sentence = reason ? reasonText(reason) : undefined;
  if (sentence) return sentence;
  if (err.code === Code.Unavailable || err.code === Code.Unknown && !reason) {
    return t("error.unreachable");
  }
  // The server's own message is written for people too (it names the field and the limits).
  return t("error.refused", { message: err.rawMessage });
}
