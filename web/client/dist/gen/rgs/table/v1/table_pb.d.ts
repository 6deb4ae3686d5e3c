import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file rgs/table/v1/table.proto.
 */
export declare const file_rgs_table_v1_table: GenFile;
/**
 * @generated from message rgs.table.v1.ListTablesRequest
 */
export type ListTablesRequest = Message<"rgs.table.v1.ListTablesRequest"> & {};
/**
 * Describes the message rgs.table.v1.ListTablesRequest.
 * Use `create(ListTablesRequestSchema)` to create a new message.
 */
export declare const ListTablesRequestSchema: GenMessage<ListTablesRequest>;
/**
 * @generated from message rgs.table.v1.TableInfo
 */
export type TableInfo = Message<"rgs.table.v1.TableInfo"> & {
    /**
     * @generated from field: string table_id = 1;
     */
    tableId: string;
    /**
     * @generated from field: string variant_id = 2;
     */
    variantId: string;
    /**
     * @generated from field: int32 seats = 3;
     */
    seats: number;
    /**
     * @generated from field: string currency = 4;
     */
    currency: string;
    /**
     * @generated from field: int64 main_min = 5;
     */
    mainMin: bigint;
    /**
     * @generated from field: int64 main_max = 6;
     */
    mainMax: bigint;
    /**
     * @generated from field: int64 side_min = 7;
     */
    sideMin: bigint;
    /**
     * @generated from field: int64 side_max = 8;
     */
    sideMax: bigint;
    /**
     * @generated from field: double betting_seconds = 9;
     */
    bettingSeconds: number;
    /**
     * @generated from field: double decision_seconds = 10;
     */
    decisionSeconds: number;
    /**
     * ListOperatorTables only: the calling operator's brands that offer the table.
     *
     * @generated from field: repeated string brand_ids = 11;
     */
    brandIds: string[];
};
/**
 * Describes the message rgs.table.v1.TableInfo.
 * Use `create(TableInfoSchema)` to create a new message.
 */
export declare const TableInfoSchema: GenMessage<TableInfo>;
/**
 * @generated from message rgs.table.v1.ListOperatorTablesRequest
 */
export type ListOperatorTablesRequest = Message<"rgs.table.v1.ListOperatorTablesRequest"> & {
    /**
     * One of the operator's brands; empty: all of them.
     *
     * @generated from field: string brand_id = 1;
     */
    brandId: string;
};
/**
 * Describes the message rgs.table.v1.ListOperatorTablesRequest.
 * Use `create(ListOperatorTablesRequestSchema)` to create a new message.
 */
export declare const ListOperatorTablesRequestSchema: GenMessage<ListOperatorTablesRequest>;
/**
 * @generated from message rgs.table.v1.ListOperatorTablesResponse
 */
export type ListOperatorTablesResponse = Message<"rgs.table.v1.ListOperatorTablesResponse"> & {
    /**
     * @generated from field: repeated rgs.table.v1.TableInfo tables = 1;
     */
    tables: TableInfo[];
};
/**
 * Describes the message rgs.table.v1.ListOperatorTablesResponse.
 * Use `create(ListOperatorTablesResponseSchema)` to create a new message.
 */
export declare const ListOperatorTablesResponseSchema: GenMessage<ListOperatorTablesResponse>;
/**
 * @generated from message rgs.table.v1.ListTablesResponse
 */
export type ListTablesResponse = Message<"rgs.table.v1.ListTablesResponse"> & {
    /**
     * @generated from field: repeated rgs.table.v1.TableInfo tables = 1;
     */
    tables: TableInfo[];
};
/**
 * Describes the message rgs.table.v1.ListTablesResponse.
 * Use `create(ListTablesResponseSchema)` to create a new message.
 */
export declare const ListTablesResponseSchema: GenMessage<ListTablesResponse>;
/**
 * @generated from message rgs.table.v1.WatchTableRequest
 */
export type WatchTableRequest = Message<"rgs.table.v1.WatchTableRequest"> & {
    /**
     * @generated from field: string table_id = 1;
     */
    tableId: string;
    /**
     * Resume after this event number (the last one the client saw); unset: snapshot first.
     *
     * @generated from field: optional int64 from_seq = 2;
     */
    fromSeq?: bigint | undefined;
};
/**
 * Describes the message rgs.table.v1.WatchTableRequest.
 * Use `create(WatchTableRequestSchema)` to create a new message.
 */
export declare const WatchTableRequestSchema: GenMessage<WatchTableRequest>;
/**
 * @generated from message rgs.table.v1.TableEvent
 */
export type TableEvent = Message<"rgs.table.v1.TableEvent"> & {
    /**
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * snake_case kind: seat_taken, bet_placed, behind_placed, deal_now, betting_closed,
     * behind_refunded, card_dealt, player_acted, decision_timed_out, round_finished, ...
     *
     * @generated from field: string kind = 2;
     */
    kind: string;
    /**
     * The event's fields as a JSON object.
     *
     * @generated from field: string payload_json = 3;
     */
    payloadJson: string;
};
/**
 * Describes the message rgs.table.v1.TableEvent.
 * Use `create(TableEventSchema)` to create a new message.
 */
export declare const TableEventSchema: GenMessage<TableEvent>;
/**
 * @generated from message rgs.table.v1.TableSnapshot
 */
export type TableSnapshot = Message<"rgs.table.v1.TableSnapshot"> & {
    /**
     * The number of the newest event the snapshot includes.
     *
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * The table as JSON: phase, round, deadline, seats (with Hot Players), bets, Bet Behinds and
     * the round's public view.
     *
     * @generated from field: string state_json = 2;
     */
    stateJson: string;
};
/**
 * Describes the message rgs.table.v1.TableSnapshot.
 * Use `create(TableSnapshotSchema)` to create a new message.
 */
export declare const TableSnapshotSchema: GenMessage<TableSnapshot>;
/**
 * @generated from message rgs.table.v1.WatchTableResponse
 */
export type WatchTableResponse = Message<"rgs.table.v1.WatchTableResponse"> & {
    /**
     * @generated from oneof rgs.table.v1.WatchTableResponse.item
     */
    item: {
        /**
         * @generated from field: rgs.table.v1.TableSnapshot snapshot = 1;
         */
        value: TableSnapshot;
        case: "snapshot";
    } | {
        /**
         * @generated from field: rgs.table.v1.TableEvent event = 2;
         */
        value: TableEvent;
        case: "event";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message rgs.table.v1.WatchTableResponse.
 * Use `create(WatchTableResponseSchema)` to create a new message.
 */
export declare const WatchTableResponseSchema: GenMessage<WatchTableResponse>;
/**
 * @generated from message rgs.table.v1.TakeSeatRequest
 */
export type TakeSeatRequest = Message<"rgs.table.v1.TakeSeatRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * @generated from field: int32 seat = 3;
     */
    seat: number;
};
/**
 * Describes the message rgs.table.v1.TakeSeatRequest.
 * Use `create(TakeSeatRequestSchema)` to create a new message.
 */
export declare const TakeSeatRequestSchema: GenMessage<TakeSeatRequest>;
/**
 * @generated from message rgs.table.v1.LeaveSeatRequest
 */
export type LeaveSeatRequest = Message<"rgs.table.v1.LeaveSeatRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * @generated from field: int32 seat = 3;
     */
    seat: number;
};
/**
 * Describes the message rgs.table.v1.LeaveSeatRequest.
 * Use `create(LeaveSeatRequestSchema)` to create a new message.
 */
export declare const LeaveSeatRequestSchema: GenMessage<LeaveSeatRequest>;
/**
 * @generated from message rgs.table.v1.Bet
 */
export type Bet = Message<"rgs.table.v1.Bet"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int64 stake = 2;
     */
    stake: bigint;
    /**
     * @generated from field: int64 perfect_pairs = 3;
     */
    perfectPairs: bigint;
    /**
     * @generated from field: int64 twenty_one_plus_three = 4;
     */
    twentyOnePlusThree: bigint;
    /**
     * @generated from field: int64 twenty_plus = 5;
     */
    twentyPlus: bigint;
    /**
     * A Bet Behind on another player's seat (no side bets), with its presets.
     *
     * @generated from field: bool behind = 6;
     */
    behind: boolean;
    /**
     * @generated from field: bool follow_double = 7;
     */
    followDouble: boolean;
    /**
     * @generated from field: bool follow_split = 8;
     */
    followSplit: boolean;
    /**
     * @generated from field: rgs.table.v1.BehindInsurance insurance = 9;
     */
    insurance: BehindInsurance;
};
/**
 * Describes the message rgs.table.v1.Bet.
 * Use `create(BetSchema)` to create a new message.
 */
export declare const BetSchema: GenMessage<Bet>;
/**
 * @generated from message rgs.table.v1.PlaceBetsRequest
 */
export type PlaceBetsRequest = Message<"rgs.table.v1.PlaceBetsRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * @generated from field: repeated rgs.table.v1.Bet bets = 3;
     */
    bets: Bet[];
    /**
     * Provably fair rounds: the seated player's client seed (0-64 printable ASCII), given with
     * the bet on their own seat (INVALID_CLIENT_SEED with Bet Behinds alone). The round's client
     * seed is combined from the seats' ones when betting closes (docs/rng.md).
     *
     * @generated from field: string client_seed = 4;
     */
    clientSeed: string;
};
/**
 * Describes the message rgs.table.v1.PlaceBetsRequest.
 * Use `create(PlaceBetsRequestSchema)` to create a new message.
 */
export declare const PlaceBetsRequestSchema: GenMessage<PlaceBetsRequest>;
/**
 * @generated from message rgs.table.v1.DealNowRequest
 */
export type DealNowRequest = Message<"rgs.table.v1.DealNowRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * Test mode only: the cards of the round to deal, in dealing order.
     *
     * @generated from field: repeated string forced_cards = 3;
     */
    forcedCards: string[];
};
/**
 * Describes the message rgs.table.v1.DealNowRequest.
 * Use `create(DealNowRequestSchema)` to create a new message.
 */
export declare const DealNowRequestSchema: GenMessage<DealNowRequest>;
/**
 * @generated from message rgs.table.v1.ActRequest
 */
export type ActRequest = Message<"rgs.table.v1.ActRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * @generated from field: string round_id = 3;
     */
    roundId: string;
    /**
     * @generated from field: int32 seat = 4;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 5;
     */
    hand: number;
    /**
     * The decision, as in rgs.blackjack.v1 without the prefix in lower case: hit, stand, double,
     * split, surrender, cash_out, ...
     *
     * @generated from field: string action = 6;
     */
    action: string;
};
/**
 * Describes the message rgs.table.v1.ActRequest.
 * Use `create(ActRequestSchema)` to create a new message.
 */
export declare const ActRequestSchema: GenMessage<ActRequest>;
/**
 * @generated from message rgs.table.v1.DecideInsuranceRequest
 */
export type DecideInsuranceRequest = Message<"rgs.table.v1.DecideInsuranceRequest"> & {
    /**
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * @generated from field: string table_id = 2;
     */
    tableId: string;
    /**
     * @generated from field: string round_id = 3;
     */
    roundId: string;
    /**
     * @generated from field: int32 seat = 4;
     */
    seat: number;
    /**
     * @generated from field: bool take = 5;
     */
    take: boolean;
    /**
     * The caller's Bet Behind on `seat` rather than their own seat.
     *
     * @generated from field: bool behind = 6;
     */
    behind: boolean;
};
/**
 * Describes the message rgs.table.v1.DecideInsuranceRequest.
 * Use `create(DecideInsuranceRequestSchema)` to create a new message.
 */
export declare const DecideInsuranceRequestSchema: GenMessage<DecideInsuranceRequest>;
/**
 * What every table command answers.
 *
 * @generated from message rgs.table.v1.TableCommandResult
 */
export type TableCommandResult = Message<"rgs.table.v1.TableCommandResult"> & {
    /**
     * The table's newest event number after the command.
     *
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * The player's balance after a debit, when the wallet gave it.
     *
     * @generated from field: optional int64 balance = 2;
     */
    balance?: bigint | undefined;
    /**
     * @generated from field: rgs.table.v1.TableSnapshot snapshot = 3;
     */
    snapshot?: TableSnapshot | undefined;
};
/**
 * Describes the message rgs.table.v1.TableCommandResult.
 * Use `create(TableCommandResultSchema)` to create a new message.
 */
export declare const TableCommandResultSchema: GenMessage<TableCommandResult>;
/**
 * @generated from message rgs.table.v1.TakeSeatResponse
 */
export type TakeSeatResponse = Message<"rgs.table.v1.TakeSeatResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.TakeSeatResponse.
 * Use `create(TakeSeatResponseSchema)` to create a new message.
 */
export declare const TakeSeatResponseSchema: GenMessage<TakeSeatResponse>;
/**
 * @generated from message rgs.table.v1.LeaveSeatResponse
 */
export type LeaveSeatResponse = Message<"rgs.table.v1.LeaveSeatResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.LeaveSeatResponse.
 * Use `create(LeaveSeatResponseSchema)` to create a new message.
 */
export declare const LeaveSeatResponseSchema: GenMessage<LeaveSeatResponse>;
/**
 * @generated from message rgs.table.v1.PlaceBetsResponse
 */
export type PlaceBetsResponse = Message<"rgs.table.v1.PlaceBetsResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.PlaceBetsResponse.
 * Use `create(PlaceBetsResponseSchema)` to create a new message.
 */
export declare const PlaceBetsResponseSchema: GenMessage<PlaceBetsResponse>;
/**
 * @generated from message rgs.table.v1.DealNowResponse
 */
export type DealNowResponse = Message<"rgs.table.v1.DealNowResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.DealNowResponse.
 * Use `create(DealNowResponseSchema)` to create a new message.
 */
export declare const DealNowResponseSchema: GenMessage<DealNowResponse>;
/**
 * @generated from message rgs.table.v1.ActResponse
 */
export type ActResponse = Message<"rgs.table.v1.ActResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.ActResponse.
 * Use `create(ActResponseSchema)` to create a new message.
 */
export declare const ActResponseSchema: GenMessage<ActResponse>;
/**
 * @generated from message rgs.table.v1.DecideInsuranceResponse
 */
export type DecideInsuranceResponse = Message<"rgs.table.v1.DecideInsuranceResponse"> & {
    /**
     * @generated from field: rgs.table.v1.TableCommandResult result = 1;
     */
    result?: TableCommandResult | undefined;
};
/**
 * Describes the message rgs.table.v1.DecideInsuranceResponse.
 * Use `create(DecideInsuranceResponseSchema)` to create a new message.
 */
export declare const DecideInsuranceResponseSchema: GenMessage<DecideInsuranceResponse>;
/**
 * @generated from message rgs.table.v1.GetTableRoundRequest
 */
export type GetTableRoundRequest = Message<"rgs.table.v1.GetTableRoundRequest"> & {
    /**
     * @generated from field: string table_id = 1;
     */
    tableId: string;
    /**
     * @generated from field: string round_id = 2;
     */
    roundId: string;
};
/**
 * Describes the message rgs.table.v1.GetTableRoundRequest.
 * Use `create(GetTableRoundRequestSchema)` to create a new message.
 */
export declare const GetTableRoundRequestSchema: GenMessage<GetTableRoundRequest>;
/**
 * @generated from message rgs.table.v1.PlayerShare
 */
export type PlayerShare = Message<"rgs.table.v1.PlayerShare"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: int64 staked = 2;
     */
    staked: bigint;
    /**
     * @generated from field: int64 paid = 3;
     */
    paid: bigint;
};
/**
 * Describes the message rgs.table.v1.PlayerShare.
 * Use `create(PlayerShareSchema)` to create a new message.
 */
export declare const PlayerShareSchema: GenMessage<PlayerShare>;
/**
 * A seat's client seed in a table round (provably fair rounds).
 *
 * @generated from message rgs.table.v1.SeatClientSeed
 */
export type SeatClientSeed = Message<"rgs.table.v1.SeatClientSeed"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: string client_seed = 2;
     */
    clientSeed: string;
};
/**
 * Describes the message rgs.table.v1.SeatClientSeed.
 * Use `create(SeatClientSeedSchema)` to create a new message.
 */
export declare const SeatClientSeedSchema: GenMessage<SeatClientSeed>;
/**
 * A table round's provably fair inputs (docs/rng.md, "At a shared table"): its card order is
 * the documented function of server_seed, client_seed and round_number.
 *
 * @generated from message rgs.table.v1.TableFairness
 */
export type TableFairness = Message<"rgs.table.v1.TableFairness"> & {
    /**
     * False for rounds dealt with forced cards (test mode) and rounds dealt before provably fair
     * table rounds; they never verify.
     *
     * @generated from field: bool verifiable = 1;
     */
    verifiable: boolean;
    /**
     * SHA-256 of the server seed, lower-case hex: published when the round's betting opened.
     *
     * @generated from field: string commitment = 2;
     */
    commitment: string;
    /**
     * The round's client seed: lower-case hex SHA-256 of the lines "<seat>:<seed>\n" of
     * seat_seeds in seat order, or empty when no seat gave one. Fixed when betting closed.
     *
     * @generated from field: string client_seed = 3;
     */
    clientSeed: string;
    /**
     * The round number (the DRBG nonce): the table's round number.
     *
     * @generated from field: int64 round_number = 4;
     */
    roundNumber: bigint;
    /**
     * Decks in the shoe the order is drawn from.
     *
     * @generated from field: int32 decks = 5;
     */
    decks: number;
    /**
     * The 32-byte server seed, lower-case hex; empty until the round is settled or voided.
     *
     * @generated from field: string server_seed = 6;
     */
    serverSeed: string;
    /**
     * The commitment of the table's next round's seed.
     *
     * @generated from field: string next_commitment = 7;
     */
    nextCommitment: string;
    /**
     * The seats' client seeds the round's client seed is made of (seats that gave none left out).
     *
     * @generated from field: repeated rgs.table.v1.SeatClientSeed seat_seeds = 8;
     */
    seatSeeds: SeatClientSeed[];
};
/**
 * Describes the message rgs.table.v1.TableFairness.
 * Use `create(TableFairnessSchema)` to create a new message.
 */
export declare const TableFairnessSchema: GenMessage<TableFairness>;
/**
 * @generated from message rgs.table.v1.GetTableRoundResponse
 */
export type GetTableRoundResponse = Message<"rgs.table.v1.GetTableRoundResponse"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * @generated from field: int64 round_no = 2;
     */
    roundNo: bigint;
    /**
     * @generated from field: string variant_id = 3;
     */
    variantId: string;
    /**
     * @generated from field: string status = 4;
     */
    status: string;
    /**
     * The round's events (JSON array of [kind, fields]); every player's stakes and results.
     * Its card_dealt events, in order, are the round's cards (`rgs verify` checks them).
     *
     * @generated from field: string events_json = 5;
     */
    eventsJson: string;
    /**
     * The calling operator's players only.
     *
     * @generated from field: repeated rgs.table.v1.PlayerShare players = 6;
     */
    players: PlayerShare[];
    /**
     * The round's provably fair inputs (verifiable false when it has none).
     *
     * @generated from field: rgs.table.v1.TableFairness fair = 7;
     */
    fair?: TableFairness | undefined;
};
/**
 * Describes the message rgs.table.v1.GetTableRoundResponse.
 * Use `create(GetTableRoundResponseSchema)` to create a new message.
 */
export declare const GetTableRoundResponseSchema: GenMessage<GetTableRoundResponse>;
/**
 * @generated from enum rgs.table.v1.BehindInsurance
 */
export declare enum BehindInsurance {
    /**
     * NEVER
     *
     * @generated from enum value: BEHIND_INSURANCE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * @generated from enum value: BEHIND_INSURANCE_NEVER = 1;
     */
    NEVER = 1,
    /**
     * @generated from enum value: BEHIND_INSURANCE_ALWAYS = 2;
     */
    ALWAYS = 2,
    /**
     * @generated from enum value: BEHIND_INSURANCE_ASK = 3;
     */
    ASK = 3
}
/**
 * Describes the enum rgs.table.v1.BehindInsurance.
 */
export declare const BehindInsuranceSchema: GenEnum<BehindInsurance>;
/**
 * TableService: watch a table, take a seat, bet, play.
 *
 * @generated from service rgs.table.v1.TableService
 */
export declare const TableService: GenService<{
    /**
     * ListTables returns the tables the session's brand offers.
     *
     * @generated from rpc rgs.table.v1.TableService.ListTables
     */
    listTables: {
        methodKind: "unary";
        input: typeof ListTablesRequestSchema;
        output: typeof ListTablesResponseSchema;
    };
    /**
     * WatchTable streams everything that happens at a table, each event numbered. With
     * `from_seq` set, the events numbered above it (after a disconnect: every missed event once);
     * without, a snapshot first and then the events above the snapshot's number.
     *
     * @generated from rpc rgs.table.v1.TableService.WatchTable
     */
    watchTable: {
        methodKind: "server_streaming";
        input: typeof WatchTableRequestSchema;
        output: typeof WatchTableResponseSchema;
    };
    /**
     * TakeSeat sits the player at a free seat (one seat per player per table).
     *
     * @generated from rpc rgs.table.v1.TableService.TakeSeat
     */
    takeSeat: {
        methodKind: "unary";
        input: typeof TakeSeatRequestSchema;
        output: typeof TakeSeatResponseSchema;
    };
    /**
     * LeaveSeat frees the player's seat (not while its bet is in play).
     *
     * @generated from rpc rgs.table.v1.TableService.LeaveSeat
     */
    leaveSeat: {
        methodKind: "unary";
        input: typeof LeaveSeatRequestSchema;
        output: typeof LeaveSeatResponseSchema;
    };
    /**
     * PlaceBets places main and side bets on the player's own seat and Bet Behind on other
     * players' seats while betting is open (the first bet of a round opens the betting time).
     *
     * @generated from rpc rgs.table.v1.TableService.PlaceBets
     */
    placeBets: {
        methodKind: "unary";
        input: typeof PlaceBetsRequestSchema;
        output: typeof PlaceBetsResponseSchema;
    };
    /**
     * DealNow: the player is ready; betting closes once every seated player who bet pressed it.
     *
     * @generated from rpc rgs.table.v1.TableService.DealNow
     */
    dealNow: {
        methodKind: "unary";
        input: typeof DealNowRequestSchema;
        output: typeof DealNowResponseSchema;
    };
    /**
     * Act applies the seated player's decision to the hand to act.
     *
     * @generated from rpc rgs.table.v1.TableService.Act
     */
    act: {
        methodKind: "unary";
        input: typeof ActRequestSchema;
        output: typeof ActResponseSchema;
    };
    /**
     * DecideInsurance: a seat's insurance decision, or a Bet Behind's live one (preset ASK).
     *
     * @generated from rpc rgs.table.v1.TableService.DecideInsurance
     */
    decideInsurance: {
        methodKind: "unary";
        input: typeof DecideInsuranceRequestSchema;
        output: typeof DecideInsuranceResponseSchema;
    };
    /**
     * GetTableRound (operator API key): a table round with every player's stakes and results;
     * the money shown is the calling operator's own players' only.
     *
     * @generated from rpc rgs.table.v1.TableService.GetTableRound
     */
    getTableRound: {
        methodKind: "unary";
        input: typeof GetTableRoundRequestSchema;
        output: typeof GetTableRoundResponseSchema;
    };
    /**
     * ListOperatorTables (operator API key): the tables the operator's brands offer (or one
     * brand's, with `brand_id`), each with which of the operator's brands offer it.
     *
     * @generated from rpc rgs.table.v1.TableService.ListOperatorTables
     */
    listOperatorTables: {
        methodKind: "unary";
        input: typeof ListOperatorTablesRequestSchema;
        output: typeof ListOperatorTablesResponseSchema;
    };
}>;
