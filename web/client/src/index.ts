// @rgs/client: the RGS player API for browsers (the solo game and the shared tables).
//
// The messages, enums and the service descriptor are generated from proto/ (src/gen, by
// `npm run generate`); this file adds the few things every studio needs around them: a client
// that sends the session token, the ErrorInfo of a refusal, and request ids for safe retries,
// and re-exports the provably fair verifier (fair.ts, fairview.ts).

import { create } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import {
  Code,
  ConnectError,
  createClient,
  type Client,
  type Interceptor,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { BlackjackService, type RedeemLaunchResponse } from "./gen/rgs/blackjack/v1/blackjack_pb.js";
import { TableService } from "./gen/rgs/table/v1/table_pb.js";

export * from "./gen/rgs/blackjack/v1/blackjack_pb.js";
/** The shared tables' messages (rgs.table.v1), e.g. `table.BetSchema`: a namespace of its own,
 * since some names (ActRequest, ...) are the player service's too. */
export * as table from "./gen/rgs/table/v1/table_pb.js";
export { TableService };
export { Code, ConnectError, create };
/** Provably fair rounds checked on the client: the card order of docs/rng.md and the checks of
 * `rgs verify` (fair.ts), and the same checks from a RoundView (fairview.ts). */
export {
  FAIR_BLOCK_BYTES,
  FairInputError,
  FairRng,
  HmacDrbg,
  MAX_CLIENT_SEED,
  SERVER_SEED_BYTES,
  cardOrder,
  clientSeedProblem,
  commitmentOf,
  fairDrbg,
  freshShoe,
  fromHex,
  hmacSha256,
  sha256,
  toHex,
  verifyRound,
  type FairCheck,
  type RoundCheck,
} from "./fair.js";
export { tableClientSeed, verifyTableRound, type TableFairness } from "./tablefair.js";
export {
  dealtFromView,
  verifyView,
  type Dealing,
  type FairnessLike,
  type Miss,
  type RoundViewLike,
  type ViewCheckOptions,
} from "./fairview.js";

/** The player service's client: one method per RPC (ListVariants, Deal, Act, Settle, ...). */
export type BlackjackClient = Client<typeof BlackjackService>;

/** The shared tables' client: ListTables, WatchTable (a server stream), TakeSeat, PlaceBets,
 * DealNow, Act, DecideInsurance, LeaveSeat. */
export type TableClient = Client<typeof TableService>;

/** Where and as whom a client calls. */
export interface ClientOptions {
  /** The RGS browser edge, e.g. `https://rgs.example.com` (no trailing path). */
  baseUrl: string;
  /** The session token the operator's server obtained with CreateSession. */
  sessionToken: string;
  /** Binary protobuf instead of JSON on the wire (smaller; JSON is easier to read in devtools). */
  useBinaryFormat?: boolean;
  /** A fetch to use instead of the global one (tests, service workers). */
  fetch?: typeof globalThis.fetch;
}

function sessionTransport(options: ClientOptions) {
  const bearer: Interceptor = (next) => async (req) => {
    req.header.set("authorization", `Bearer ${options.sessionToken}`);
    return next(req);
  };
  return createConnectTransport({
    baseUrl: options.baseUrl,
    useBinaryFormat: options.useBinaryFormat ?? false,
    interceptors: [bearer],
    fetch: options.fetch,
  });
}

/** A client of the player service that sends `authorization: Bearer <session token>`. */
export function createBlackjackClient(options: ClientOptions): BlackjackClient {
  return createClient(BlackjackService, sessionTransport(options));
}

/** The one-time launch code of a launch URL (CreateLaunch's, `...#launch=l1.<code>`), read from
 * its fragment (never sent to a server); undefined when the URL carries none. */
export function launchCodeFrom(url: string): string | undefined {
  const fragment = url.split("#")[1] ?? "";
  return new URLSearchParams(fragment).get("launch") ?? undefined;
}

/** Exchange a launch code for its session, once (RedeemLaunch: no session yet, so no
 * authorization). The answer has the session token for {@link createBlackjackClient} and what
 * the operator asked for: the variant or table, the language, the lobby and cashier URLs, the
 * device, demo play. A used, expired or altered code is refused PERMISSION_DENIED with reason
 * LAUNCH_CODE_USED, LAUNCH_CODE_EXPIRED or LAUNCH_CODE_INVALID. */
export async function redeemLaunch(
  options: Omit<ClientOptions, "sessionToken">,
  launchCode: string,
): Promise<RedeemLaunchResponse> {
  const transport = createConnectTransport({
    baseUrl: options.baseUrl,
    useBinaryFormat: options.useBinaryFormat ?? false,
    fetch: options.fetch,
  });
  return createClient(BlackjackService, transport).redeemLaunch({ launchCode });
}

/** A client of the shared tables that sends `authorization: Bearer <session token>`.
 * `watchTable` is an async iterable of events; after a disconnect, call it again with
 * `fromSeq` = the last event number seen to get every missed event exactly once. */
export function createTableClient(options: ClientOptions): TableClient {
  return createClient(TableService, sessionTransport(options));
}

/** The `google.rpc.ErrorInfo` every RGS refusal carries (domain `rgs`). */
export interface ErrorInfo {
  /** UPPER_SNAKE_CASE, e.g. INSUFFICIENT_FUNDS, STALE_SEQ, ACTION_NOT_ALLOWED. */
  reason: string;
  domain: string;
  /** e.g. `field`: the request field at fault. */
  metadata: Record<string, string>;
}

const ERROR_INFO = "google.rpc.ErrorInfo";

/** The ErrorInfo of a failed call (undefined for errors that never reached the RGS). */
export function errorInfo(error: unknown): ErrorInfo | undefined {
  const err = ConnectError.from(error);
  for (const detail of err.details) {
    if ("desc" in detail || detail.type !== ERROR_INFO) {
      continue;
    }
    return decodeErrorInfo(detail.value);
  }
  return undefined;
}

function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  // google/rpc/error_details.proto: reason = 1, domain = 2, map<string, string> metadata = 3.
  const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) {
      info.reason = reader.string();
    } else if (field === 2) {
      info.domain = reader.string();
    } else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      info.metadata[key] = value;
    } else {
      reader.skip(wireType);
    }
  }
  return info;
}

/** Codes a client retries with the same request id (nothing is ever executed twice). */
export const RETRYABLE_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.Aborted]);

/** Whether a failed call may be sent again, unchanged, with the same request id. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE_CODES.has(ConnectError.from(error).code);
}

/** A fresh request id (1-64 characters): keep it for the retries of one intended action. */
export function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}

/** What a jurisdiction profile asks of a client (docs/jurisdictions.md). */
export { celebrates, elapsedText, positionText, resultWords, waitLeftMs } from "./market.js";
