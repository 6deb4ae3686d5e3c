import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Action, Availability, FreeBet, LobbyEntry, Outcome, ResultClass, RoundView, SessionPosition, SideBetKind } from "../../blackjack/v1/blackjack_pb.js";
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
    /**
     * A seat is given back after this many dealt rounds in a row without a bet on it...
     *
     * @generated from field: int32 sit_out_rounds = 12;
     */
    sitOutRounds: number;
    /**
     * ... or when its player has neither watched the table nor acted at it for this long.
     *
     * @generated from field: double away_seconds = 13;
     */
    awaySeconds: number;
    /**
     * Whether the table takes new bets now (for ListTables: from the session's brand; for
     * ListOperatorTables: the first of the operator's brands listed). Rounds in play finish.
     *
     * @generated from field: rgs.blackjack.v1.Availability availability = 30;
     */
    availability?: Availability | undefined;
    /**
     * ListTables only: what an operator's lobby shows of the table for the session's brand (its
     * seats free now among the features; docs/api.md, "A lobby's catalogue").
     *
     * @generated from field: rgs.blackjack.v1.LobbyEntry lobby = 40;
     */
    lobby?: LobbyEntry | undefined;
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
    /**
     * The language the session was launched in (BCP 47: en, de, es; empty: not launched); the
     * lobby entries' words are in it.
     *
     * @generated from field: string language = 2;
     */
    language: string;
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
    /**
     * Opt-in: the events come as `events` batches, each with every event the server had for the
     * caller when it sent it (in order, numbered without gaps), so a watcher that falls behind
     * gets one message with many events rather than many messages. Unset: one `event` each.
     *
     * @generated from field: bool batch_events = 3;
     */
    batchEvents: boolean;
};
/**
 * Describes the message rgs.table.v1.WatchTableRequest.
 * Use `create(WatchTableRequestSchema)` to create a new message.
 */
export declare const WatchTableRequestSchema: GenMessage<WatchTableRequest>;
/**
 * Someone at the table as the caller may see them: never another operator's player ids.
 *
 * @generated from message rgs.table.v1.TablePlayer
 */
export type TablePlayer = Message<"rgs.table.v1.TablePlayer"> & {
    /**
     * How the table shows the player: the nickname their operator gave at CreateSession, else a
     * pseudonym stable per player and table ("Player 7F3A").
     *
     * @generated from field: string display_name = 1;
     */
    displayName: string;
    /**
     * True for the caller themselves: decided by the server from the session (a client never
     * compares ids to find itself).
     *
     * @generated from field: bool you = 2;
     */
    you: boolean;
    /**
     * GetTableRound only: the player's id at the calling operator, for that operator's own
     * players; empty everywhere else.
     *
     * @generated from field: string player_id = 3;
     */
    playerId: string;
};
/**
 * Describes the message rgs.table.v1.TablePlayer.
 * Use `create(TablePlayerSchema)` to create a new message.
 */
export declare const TablePlayerSchema: GenMessage<TablePlayer>;
/**
 * A taken seat.
 *
 * @generated from message rgs.table.v1.Seat
 */
export type Seat = Message<"rgs.table.v1.Seat"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * Hot Players: rounds in a row its player won on it.
     *
     * @generated from field: int32 hot = 3;
     */
    hot: number;
    /**
     * Its player left with a bet in play: the seat is given back when the round ends.
     *
     * @generated from field: bool leaving = 4;
     */
    leaving: boolean;
    /**
     * Dealt rounds in a row it had no bet in; at the table's sit_out_rounds it is given back.
     *
     * @generated from field: int32 sat_out = 5;
     */
    satOut: number;
};
/**
 * Describes the message rgs.table.v1.Seat.
 * Use `create(SeatSchema)` to create a new message.
 */
export declare const SeatSchema: GenMessage<Seat>;
/**
 * A seat's bets for the round being bet on or played.
 *
 * @generated from message rgs.table.v1.SeatBet
 */
export type SeatBet = Message<"rgs.table.v1.SeatBet"> & {
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
     * The seat's player pressed Deal Now.
     *
     * @generated from field: bool deal_now = 6;
     */
    dealNow: boolean;
    /**
     * The seat's client seed (provably fair rounds), as given with the bet.
     *
     * @generated from field: string client_seed = 7;
     */
    clientSeed: string;
};
/**
 * Describes the message rgs.table.v1.SeatBet.
 * Use `create(SeatBetSchema)` to create a new message.
 */
export declare const SeatBetSchema: GenMessage<SeatBet>;
/**
 * A seat's Bet Behinds of the round, every bettor's together (issue 27): players see these
 * totals, not each other's Bet Behinds.
 *
 * @generated from message rgs.table.v1.BehindTotal
 */
export type BehindTotal = Message<"rgs.table.v1.BehindTotal"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * How many Bet Behinds are on the seat, and their stakes together (minor units).
     *
     * @generated from field: int32 bettors = 2;
     */
    bettors: number;
    /**
     * @generated from field: int64 staked = 3;
     */
    staked: bigint;
};
/**
 * Describes the message rgs.table.v1.BehindTotal.
 * Use `create(BehindTotalSchema)` to create a new message.
 */
export declare const BehindTotalSchema: GenMessage<BehindTotal>;
/**
 * A Bet Behind on a seat, with its presets.
 *
 * @generated from message rgs.table.v1.BehindBet
 */
export type BehindBet = Message<"rgs.table.v1.BehindBet"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 stake = 3;
     */
    stake: bigint;
    /**
     * @generated from field: bool follow_double = 4;
     */
    followDouble: boolean;
    /**
     * @generated from field: bool follow_split = 5;
     */
    followSplit: boolean;
    /**
     * @generated from field: rgs.table.v1.BehindInsurance insurance = 6;
     */
    insurance: BehindInsurance;
};
/**
 * Describes the message rgs.table.v1.BehindBet.
 * Use `create(BehindBetSchema)` to create a new message.
 */
export declare const BehindBetSchema: GenMessage<BehindBet>;
/**
 * An insurance decision made while insurance is open (applied when it closes).
 *
 * @generated from message rgs.table.v1.InsuranceDecision
 */
export type InsuranceDecision = Message<"rgs.table.v1.InsuranceDecision"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * The Bet Behind's player for a Bet Behind's decision; unset for the seat's own.
     *
     * @generated from field: rgs.table.v1.TablePlayer behind = 2;
     */
    behind?: TablePlayer | undefined;
    /**
     * @generated from field: bool take = 3;
     */
    take: boolean;
};
/**
 * Describes the message rgs.table.v1.InsuranceDecision.
 * Use `create(InsuranceDecisionSchema)` to create a new message.
 */
export declare const InsuranceDecisionSchema: GenMessage<InsuranceDecision>;
/**
 * The last finished round: its fairness, the server seed revealed, and how it ended.
 *
 * @generated from message rgs.table.v1.LastRound
 */
export type LastRound = Message<"rgs.table.v1.LastRound"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * @generated from field: rgs.table.v1.TableFairness fair = 2;
     */
    fair?: TableFairness | undefined;
    /**
     * The round as it ended (the dealer's cards, every hand's result), its totals the caller's
     * own money in it: a client shows it until the next round is dealt. Unset for a round that
     * dealt no card.
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 3;
     */
    round?: RoundView | undefined;
};
/**
 * Describes the message rgs.table.v1.LastRound.
 * Use `create(LastRoundSchema)` to create a new message.
 */
export declare const LastRoundSchema: GenMessage<LastRound>;
/**
 * The table as the caller sees it.
 *
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
     * @generated from field: string table_id = 3;
     */
    tableId: string;
    /**
     * @generated from field: rgs.table.v1.TablePhase phase = 4;
     */
    phase: TablePhase;
    /**
     * The round being bet on or played (empty when idle).
     *
     * @generated from field: string round_id = 5;
     */
    roundId: string;
    /**
     * @generated from field: int64 round_no = 6;
     */
    roundNo: bigint;
    /**
     * When betting closes or the decision due runs out; unset when nothing is timed.
     *
     * @generated from field: google.protobuf.Timestamp deadline = 7;
     */
    deadline?: Timestamp | undefined;
    /**
     * @generated from field: repeated rgs.table.v1.Seat seats = 8;
     */
    seats: Seat[];
    /**
     * @generated from field: repeated rgs.table.v1.SeatBet bets = 9;
     */
    bets: SeatBet[];
    /**
     * @generated from field: repeated rgs.table.v1.BehindBet behind = 10;
     */
    behind: BehindBet[];
    /**
     * @generated from field: repeated rgs.table.v1.InsuranceDecision insurance = 11;
     */
    insurance: InsuranceDecision[];
    /**
     * The round in play (unset while idle or betting): the same view solo rounds use. Its Bet
     * Behinds are on each box (`behind`), its totals are the caller's own money in the round;
     * with hints on, each open decision carries its exact value, whoever's it is.
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 12;
     */
    round?: RoundView | undefined;
    /**
     * The round's fairness while it is bet on or played (the server seed hidden).
     *
     * @generated from field: rgs.table.v1.TableFairness fair = 13;
     */
    fair?: TableFairness | undefined;
    /**
     * The commitment of the seed the table's next round uses.
     *
     * @generated from field: string next_commitment = 14;
     */
    nextCommitment: string;
    /**
     * The last finished round, with its revealed seed and cards.
     *
     * @generated from field: rgs.table.v1.LastRound last_round = 15;
     */
    lastRound?: LastRound | undefined;
    /**
     * The watching player's session: its time and money so far (solo and table rounds), set for
     * brands whose jurisdiction profile requires clients to show it (docs/jurisdictions.md).
     *
     * @generated from field: rgs.blackjack.v1.SessionPosition session = 16;
     */
    session?: SessionPosition | undefined;
    /**
     * The watching player's free bets left that this table takes (its currency, its variant or
     * the table itself): Bet.free_bet_id = grant_id on their own seat's main bet of that value.
     *
     * @generated from field: repeated rgs.blackjack.v1.FreeBet free_bets = 17;
     */
    freeBets: FreeBet[];
    /**
     * Every seat's Bet Behinds together (seats with none left out). `behind` above lists only
     * the watching player's own Bet Behinds.
     *
     * @generated from field: repeated rgs.table.v1.BehindTotal behind_totals = 18;
     */
    behindTotals: BehindTotal[];
};
/**
 * Describes the message rgs.table.v1.TableSnapshot.
 * Use `create(TableSnapshotSchema)` to create a new message.
 */
export declare const TableSnapshotSchema: GenMessage<TableSnapshot>;
/**
 * One numbered event of a table.
 *
 * @generated from message rgs.table.v1.TableEvent
 */
export type TableEvent = Message<"rgs.table.v1.TableEvent"> & {
    /**
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * When it happened.
     *
     * @generated from field: google.protobuf.Timestamp at = 4;
     */
    at?: Timestamp | undefined;
    /**
     * @generated from oneof rgs.table.v1.TableEvent.event
     */
    event: {
        /**
         * @generated from field: rgs.table.v1.SeatTaken seat_taken = 10;
         */
        value: SeatTaken;
        case: "seatTaken";
    } | {
        /**
         * @generated from field: rgs.table.v1.SeatLeft seat_left = 11;
         */
        value: SeatLeft;
        case: "seatLeft";
    } | {
        /**
         * @generated from field: rgs.table.v1.BettingOpened betting_opened = 12;
         */
        value: BettingOpened;
        case: "bettingOpened";
    } | {
        /**
         * @generated from field: rgs.table.v1.BetPlaced bet_placed = 13;
         */
        value: BetPlaced;
        case: "betPlaced";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindPlaced behind_placed = 14;
         */
        value: BehindPlaced;
        case: "behindPlaced";
    } | {
        /**
         * @generated from field: rgs.table.v1.DealNowPressed deal_now = 15;
         */
        value: DealNowPressed;
        case: "dealNow";
    } | {
        /**
         * @generated from field: rgs.table.v1.BettingClosing betting_closing = 16;
         */
        value: BettingClosing;
        case: "bettingClosing";
    } | {
        /**
         * @generated from field: rgs.table.v1.BettingClosed betting_closed = 17;
         */
        value: BettingClosed;
        case: "bettingClosed";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindRefunded behind_refunded = 18;
         */
        value: BehindRefunded;
        case: "behindRefunded";
    } | {
        /**
         * @generated from field: rgs.table.v1.RoundStarted round_started = 19;
         */
        value: RoundStarted;
        case: "roundStarted";
    } | {
        /**
         * @generated from field: rgs.table.v1.CardDealt card_dealt = 20;
         */
        value: CardDealt;
        case: "cardDealt";
    } | {
        /**
         * @generated from field: rgs.table.v1.HoleCardRevealed hole_card_revealed = 21;
         */
        value: HoleCardRevealed;
        case: "holeCardRevealed";
    } | {
        /**
         * @generated from field: rgs.table.v1.CardBurned card_burned = 22;
         */
        value: CardBurned;
        case: "cardBurned";
    } | {
        /**
         * @generated from field: rgs.table.v1.DealerPeeked dealer_peeked = 23;
         */
        value: DealerPeeked;
        case: "dealerPeeked";
    } | {
        /**
         * @generated from field: rgs.table.v1.PlayerActed player_acted = 24;
         */
        value: PlayerActed;
        case: "playerActed";
    } | {
        /**
         * @generated from field: rgs.table.v1.DecisionDue decision_due = 25;
         */
        value: DecisionDue;
        case: "decisionDue";
    } | {
        /**
         * @generated from field: rgs.table.v1.DecisionTimedOut decision_timed_out = 26;
         */
        value: DecisionTimedOut;
        case: "decisionTimedOut";
    } | {
        /**
         * @generated from field: rgs.table.v1.InsuranceDecided insurance_decided = 27;
         */
        value: InsuranceDecided;
        case: "insuranceDecided";
    } | {
        /**
         * @generated from field: rgs.table.v1.InsuranceSettled insurance_settled = 28;
         */
        value: InsuranceSettled;
        case: "insuranceSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.SideBetSettled side_bet_settled = 29;
         */
        value: SideBetSettled;
        case: "sideBetSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.HandSettled hand_settled = 30;
         */
        value: HandSettled;
        case: "handSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindStakeAdded behind_stake_added = 31;
         */
        value: BehindStakeAdded;
        case: "behindStakeAdded";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindFollowSkipped behind_follow_skipped = 32;
         */
        value: BehindFollowSkipped;
        case: "behindFollowSkipped";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindSettled behind_settled = 33;
         */
        value: BehindSettled;
        case: "behindSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindInsuranceSettled behind_insurance_settled = 34;
         */
        value: BehindInsuranceSettled;
        case: "behindInsuranceSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.RoundSettled round_settled = 35;
         */
        value: RoundSettled;
        case: "roundSettled";
    } | {
        /**
         * @generated from field: rgs.table.v1.RoundVoided round_voided = 36;
         */
        value: RoundVoided;
        case: "roundVoided";
    } | {
        /**
         * @generated from field: rgs.table.v1.RoundFinished round_finished = 37;
         */
        value: RoundFinished;
        case: "roundFinished";
    } | {
        /**
         * @generated from field: rgs.table.v1.BehindTotals behind_totals = 38;
         */
        value: BehindTotals;
        case: "behindTotals";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message rgs.table.v1.TableEvent.
 * Use `create(TableEventSchema)` to create a new message.
 */
export declare const TableEventSchema: GenMessage<TableEvent>;
/**
 * @generated from message rgs.table.v1.SeatTaken
 */
export type SeatTaken = Message<"rgs.table.v1.SeatTaken"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
};
/**
 * Describes the message rgs.table.v1.SeatTaken.
 * Use `create(SeatTakenSchema)` to create a new message.
 */
export declare const SeatTakenSchema: GenMessage<SeatTaken>;
/**
 * @generated from message rgs.table.v1.SeatLeft
 */
export type SeatLeft = Message<"rgs.table.v1.SeatLeft"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: rgs.table.v1.SeatRelease reason = 3;
     */
    reason: SeatRelease;
};
/**
 * Describes the message rgs.table.v1.SeatLeft.
 * Use `create(SeatLeftSchema)` to create a new message.
 */
export declare const SeatLeftSchema: GenMessage<SeatLeft>;
/**
 * @generated from message rgs.table.v1.BettingOpened
 */
export type BettingOpened = Message<"rgs.table.v1.BettingOpened"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * @generated from field: int64 round_no = 2;
     */
    roundNo: bigint;
    /**
     * @generated from field: google.protobuf.Timestamp deadline = 3;
     */
    deadline?: Timestamp | undefined;
    /**
     * The round's commitment and the next round's (the server seed hidden).
     *
     * @generated from field: rgs.table.v1.TableFairness fair = 4;
     */
    fair?: TableFairness | undefined;
};
/**
 * Describes the message rgs.table.v1.BettingOpened.
 * Use `create(BettingOpenedSchema)` to create a new message.
 */
export declare const BettingOpenedSchema: GenMessage<BettingOpened>;
/**
 * @generated from message rgs.table.v1.BetPlaced
 */
export type BetPlaced = Message<"rgs.table.v1.BetPlaced"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 stake = 3;
     */
    stake: bigint;
    /**
     * @generated from field: int64 perfect_pairs = 4;
     */
    perfectPairs: bigint;
    /**
     * @generated from field: int64 twenty_one_plus_three = 5;
     */
    twentyOnePlusThree: bigint;
    /**
     * @generated from field: int64 twenty_plus = 6;
     */
    twentyPlus: bigint;
    /**
     * @generated from field: string client_seed = 7;
     */
    clientSeed: string;
};
/**
 * Describes the message rgs.table.v1.BetPlaced.
 * Use `create(BetPlacedSchema)` to create a new message.
 */
export declare const BetPlacedSchema: GenMessage<BetPlaced>;
/**
 * A Bet Behind placed: sent only to its own player (to everyone else the event is numbered
 * and empty). A Bet Behind of a player without a seat, placed while betting is open, is not
 * announced one by one at all: the table's `behind_totals` say how the seats' Bet Behinds grow.
 *
 * @generated from message rgs.table.v1.BehindPlaced
 */
export type BehindPlaced = Message<"rgs.table.v1.BehindPlaced"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 stake = 3;
     */
    stake: bigint;
    /**
     * @generated from field: bool follow_double = 4;
     */
    followDouble: boolean;
    /**
     * @generated from field: bool follow_split = 5;
     */
    followSplit: boolean;
    /**
     * @generated from field: rgs.table.v1.BehindInsurance insurance = 6;
     */
    insurance: BehindInsurance;
};
/**
 * Describes the message rgs.table.v1.BehindPlaced.
 * Use `create(BehindPlacedSchema)` to create a new message.
 */
export declare const BehindPlacedSchema: GenMessage<BehindPlaced>;
/**
 * The Bet Behinds' totals per seat while betting is open, announced at most every quarter of
 * a second when they changed (every seat with a Bet Behind; a seat not listed has none).
 *
 * @generated from message rgs.table.v1.BehindTotals
 */
export type BehindTotals = Message<"rgs.table.v1.BehindTotals"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * @generated from field: repeated rgs.table.v1.BehindTotal seats = 2;
     */
    seats: BehindTotal[];
};
/**
 * Describes the message rgs.table.v1.BehindTotals.
 * Use `create(BehindTotalsSchema)` to create a new message.
 */
export declare const BehindTotalsSchema: GenMessage<BehindTotals>;
/**
 * @generated from message rgs.table.v1.DealNowPressed
 */
export type DealNowPressed = Message<"rgs.table.v1.DealNowPressed"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
};
/**
 * Describes the message rgs.table.v1.DealNowPressed.
 * Use `create(DealNowPressedSchema)` to create a new message.
 */
export declare const DealNowPressedSchema: GenMessage<DealNowPressed>;
/**
 * Every seated player who bet pressed Deal Now: betting closes at the clock's next pass.
 *
 * @generated from message rgs.table.v1.BettingClosing
 */
export type BettingClosing = Message<"rgs.table.v1.BettingClosing"> & {
    /**
     * @generated from field: string reason = 1;
     */
    reason: string;
};
/**
 * Describes the message rgs.table.v1.BettingClosing.
 * Use `create(BettingClosingSchema)` to create a new message.
 */
export declare const BettingClosingSchema: GenMessage<BettingClosing>;
/**
 * @generated from message rgs.table.v1.BettingClosed
 */
export type BettingClosed = Message<"rgs.table.v1.BettingClosed"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * The seats that bet (those dealt in); empty: nothing is dealt.
     *
     * @generated from field: repeated int32 seats = 2;
     */
    seats: number[];
    /**
     * The round's client seed is fixed now (the server seed hidden, unless nothing is dealt).
     *
     * @generated from field: rgs.table.v1.TableFairness fair = 3;
     */
    fair?: TableFairness | undefined;
};
/**
 * Describes the message rgs.table.v1.BettingClosed.
 * Use `create(BettingClosedSchema)` to create a new message.
 */
export declare const BettingClosedSchema: GenMessage<BettingClosed>;
/**
 * @generated from message rgs.table.v1.BehindRefunded
 */
export type BehindRefunded = Message<"rgs.table.v1.BehindRefunded"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 amount = 3;
     */
    amount: bigint;
    /**
     * seat_sat_out: the seat placed no bet this round; seat_released: the seat was given back
     * while bets were taken.
     *
     * @generated from field: string reason = 4;
     */
    reason: string;
};
/**
 * Describes the message rgs.table.v1.BehindRefunded.
 * Use `create(BehindRefundedSchema)` to create a new message.
 */
export declare const BehindRefundedSchema: GenMessage<BehindRefunded>;
/**
 * The deal began: the seats dealt in, in seat order, and each one's player.
 *
 * @generated from message rgs.table.v1.RoundStarted
 */
export type RoundStarted = Message<"rgs.table.v1.RoundStarted"> & {
    /**
     * @generated from field: repeated int32 seats = 1;
     */
    seats: number[];
    /**
     * The player of each of `seats`, in the same order.
     *
     * @generated from field: repeated rgs.table.v1.TablePlayer players = 2;
     */
    players: TablePlayer[];
};
/**
 * Describes the message rgs.table.v1.RoundStarted.
 * Use `create(RoundStartedSchema)` to create a new message.
 */
export declare const RoundStartedSchema: GenMessage<RoundStarted>;
/**
 * @generated from message rgs.table.v1.CardDealt
 */
export type CardDealt = Message<"rgs.table.v1.CardDealt"> & {
    /**
     * Empty for the dealer's face-down hole card.
     *
     * @generated from field: string card = 1;
     */
    card: string;
    /**
     * Unset: the dealer.
     *
     * @generated from field: optional int32 seat = 2;
     */
    seat?: number | undefined;
    /**
     * @generated from field: int32 hand = 3;
     */
    hand: number;
    /**
     * @generated from field: bool face_down = 4;
     */
    faceDown: boolean;
};
/**
 * Describes the message rgs.table.v1.CardDealt.
 * Use `create(CardDealtSchema)` to create a new message.
 */
export declare const CardDealtSchema: GenMessage<CardDealt>;
/**
 * @generated from message rgs.table.v1.HoleCardRevealed
 */
export type HoleCardRevealed = Message<"rgs.table.v1.HoleCardRevealed"> & {
    /**
     * @generated from field: string card = 1;
     */
    card: string;
};
/**
 * Describes the message rgs.table.v1.HoleCardRevealed.
 * Use `create(HoleCardRevealedSchema)` to create a new message.
 */
export declare const HoleCardRevealedSchema: GenMessage<HoleCardRevealed>;
/**
 * A card discarded (Power Double's replaced card).
 *
 * @generated from message rgs.table.v1.CardBurned
 */
export type CardBurned = Message<"rgs.table.v1.CardBurned"> & {
    /**
     * @generated from field: string card = 1;
     */
    card: string;
    /**
     * @generated from field: int32 seat = 2;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 3;
     */
    hand: number;
};
/**
 * Describes the message rgs.table.v1.CardBurned.
 * Use `create(CardBurnedSchema)` to create a new message.
 */
export declare const CardBurnedSchema: GenMessage<CardBurned>;
/**
 * @generated from message rgs.table.v1.DealerPeeked
 */
export type DealerPeeked = Message<"rgs.table.v1.DealerPeeked"> & {
    /**
     * @generated from field: bool blackjack = 1;
     */
    blackjack: boolean;
};
/**
 * Describes the message rgs.table.v1.DealerPeeked.
 * Use `create(DealerPeekedSchema)` to create a new message.
 */
export declare const DealerPeekedSchema: GenMessage<DealerPeeked>;
/**
 * @generated from message rgs.table.v1.PlayerActed
 */
export type PlayerActed = Message<"rgs.table.v1.PlayerActed"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.blackjack.v1.Action action = 3;
     */
    action: Action;
    /**
     * @generated from field: int64 stake_added = 4;
     */
    stakeAdded: bigint;
};
/**
 * Describes the message rgs.table.v1.PlayerActed.
 * Use `create(PlayerActedSchema)` to create a new message.
 */
export declare const PlayerActedSchema: GenMessage<PlayerActed>;
/**
 * @generated from message rgs.table.v1.DecisionDue
 */
export type DecisionDue = Message<"rgs.table.v1.DecisionDue"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: google.protobuf.Timestamp deadline = 3;
     */
    deadline?: Timestamp | undefined;
};
/**
 * Describes the message rgs.table.v1.DecisionDue.
 * Use `create(DecisionDueSchema)` to create a new message.
 */
export declare const DecisionDueSchema: GenMessage<DecisionDue>;
/**
 * @generated from message rgs.table.v1.DecisionTimedOut
 */
export type DecisionTimedOut = Message<"rgs.table.v1.DecisionTimedOut"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.blackjack.v1.Action action = 3;
     */
    action: Action;
};
/**
 * Describes the message rgs.table.v1.DecisionTimedOut.
 * Use `create(DecisionTimedOutSchema)` to create a new message.
 */
export declare const DecisionTimedOutSchema: GenMessage<DecisionTimedOut>;
/**
 * @generated from message rgs.table.v1.InsuranceDecided
 */
export type InsuranceDecided = Message<"rgs.table.v1.InsuranceDecided"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * The decision of a Bet Behind (preset ask) rather than the seat's.
     *
     * @generated from field: bool behind = 3;
     */
    behind: boolean;
    /**
     * @generated from field: bool take = 4;
     */
    take: boolean;
};
/**
 * Describes the message rgs.table.v1.InsuranceDecided.
 * Use `create(InsuranceDecidedSchema)` to create a new message.
 */
export declare const InsuranceDecidedSchema: GenMessage<InsuranceDecided>;
/**
 * @generated from message rgs.table.v1.InsuranceSettled
 */
export type InsuranceSettled = Message<"rgs.table.v1.InsuranceSettled"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int64 stake = 2;
     */
    stake: bigint;
    /**
     * @generated from field: int64 payout = 3;
     */
    payout: bigint;
};
/**
 * Describes the message rgs.table.v1.InsuranceSettled.
 * Use `create(InsuranceSettledSchema)` to create a new message.
 */
export declare const InsuranceSettledSchema: GenMessage<InsuranceSettled>;
/**
 * @generated from message rgs.table.v1.SideBetSettled
 */
export type SideBetSettled = Message<"rgs.table.v1.SideBetSettled"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.blackjack.v1.SideBetKind kind = 2;
     */
    kind: SideBetKind;
    /**
     * @generated from field: int64 stake = 3;
     */
    stake: bigint;
    /**
     * The paytable line hit (`lose` when none).
     *
     * @generated from field: string line = 4;
     */
    line: string;
    /**
     * @generated from field: int32 pays = 5;
     */
    pays: number;
    /**
     * @generated from field: int64 payout = 6;
     */
    payout: bigint;
};
/**
 * Describes the message rgs.table.v1.SideBetSettled.
 * Use `create(SideBetSettledSchema)` to create a new message.
 */
export declare const SideBetSettledSchema: GenMessage<SideBetSettled>;
/**
 * @generated from message rgs.table.v1.HandSettled
 */
export type HandSettled = Message<"rgs.table.v1.HandSettled"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.blackjack.v1.Outcome outcome = 3;
     */
    outcome: Outcome;
    /**
     * @generated from field: int64 stake = 4;
     */
    stake: bigint;
    /**
     * @generated from field: int64 payout = 5;
     */
    payout: bigint;
};
/**
 * Describes the message rgs.table.v1.HandSettled.
 * Use `create(HandSettledSchema)` to create a new message.
 */
export declare const HandSettledSchema: GenMessage<HandSettled>;
/**
 * A Bet Behind followed a double or split, or took insurance.
 *
 * @generated from message rgs.table.v1.BehindStakeAdded
 */
export type BehindStakeAdded = Message<"rgs.table.v1.BehindStakeAdded"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 3;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: rgs.blackjack.v1.Action action = 4;
     */
    action: Action;
    /**
     * @generated from field: int64 amount = 5;
     */
    amount: bigint;
};
/**
 * Describes the message rgs.table.v1.BehindStakeAdded.
 * Use `create(BehindStakeAddedSchema)` to create a new message.
 */
export declare const BehindStakeAddedSchema: GenMessage<BehindStakeAdded>;
/**
 * A Bet Behind whose preset follows did not: its wallet refused, or its journal was busy.
 *
 * @generated from message rgs.table.v1.BehindFollowSkipped
 */
export type BehindFollowSkipped = Message<"rgs.table.v1.BehindFollowSkipped"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 3;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: rgs.blackjack.v1.Action action = 4;
     */
    action: Action;
};
/**
 * Describes the message rgs.table.v1.BehindFollowSkipped.
 * Use `create(BehindFollowSkippedSchema)` to create a new message.
 */
export declare const BehindFollowSkippedSchema: GenMessage<BehindFollowSkipped>;
/**
 * @generated from message rgs.table.v1.BehindSettled
 */
export type BehindSettled = Message<"rgs.table.v1.BehindSettled"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hand = 2;
     */
    hand: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 3;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: rgs.blackjack.v1.Outcome outcome = 4;
     */
    outcome: Outcome;
    /**
     * @generated from field: int64 stake = 5;
     */
    stake: bigint;
    /**
     * @generated from field: int64 payout = 6;
     */
    payout: bigint;
};
/**
 * Describes the message rgs.table.v1.BehindSettled.
 * Use `create(BehindSettledSchema)` to create a new message.
 */
export declare const BehindSettledSchema: GenMessage<BehindSettled>;
/**
 * @generated from message rgs.table.v1.BehindInsuranceSettled
 */
export type BehindInsuranceSettled = Message<"rgs.table.v1.BehindInsuranceSettled"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 2;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 stake = 3;
     */
    stake: bigint;
    /**
     * @generated from field: int64 payout = 4;
     */
    payout: bigint;
};
/**
 * Describes the message rgs.table.v1.BehindInsuranceSettled.
 * Use `create(BehindInsuranceSettledSchema)` to create a new message.
 */
export declare const BehindInsuranceSettledSchema: GenMessage<BehindInsuranceSettled>;
/**
 * Every bet of the round is settled (round_finished follows with the money).
 *
 * @generated from message rgs.table.v1.RoundSettled
 */
export type RoundSettled = Message<"rgs.table.v1.RoundSettled"> & {};
/**
 * Describes the message rgs.table.v1.RoundSettled.
 * Use `create(RoundSettledSchema)` to create a new message.
 */
export declare const RoundSettledSchema: GenMessage<RoundSettled>;
/**
 * The round cannot be dealt or go on: every stake is returned.
 *
 * @generated from message rgs.table.v1.RoundVoided
 */
export type RoundVoided = Message<"rgs.table.v1.RoundVoided"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * @generated from field: string reason = 2;
     */
    reason: string;
    /**
     * @generated from field: rgs.table.v1.TableFairness fair = 3;
     */
    fair?: TableFairness | undefined;
};
/**
 * Describes the message rgs.table.v1.RoundVoided.
 * Use `create(RoundVoidedSchema)` to create a new message.
 */
export declare const RoundVoidedSchema: GenMessage<RoundVoided>;
/**
 * A player's money in a finished round.
 *
 * @generated from message rgs.table.v1.PlayerResult
 */
export type PlayerResult = Message<"rgs.table.v1.PlayerResult"> & {
    /**
     * @generated from field: rgs.table.v1.TablePlayer player = 1;
     */
    player?: TablePlayer | undefined;
    /**
     * @generated from field: int64 staked = 2;
     */
    staked: bigint;
    /**
     * @generated from field: int64 paid = 3;
     */
    paid: bigint;
    /**
     * How the round ended for the player against their stake: a client celebrates only
     * RESULT_CLASS_WIN (UKGC RTS 14C).
     *
     * @generated from field: rgs.blackjack.v1.ResultClass result = 4;
     */
    result: ResultClass;
};
/**
 * Describes the message rgs.table.v1.PlayerResult.
 * Use `create(PlayerResultSchema)` to create a new message.
 */
export declare const PlayerResultSchema: GenMessage<PlayerResult>;
/**
 * @generated from message rgs.table.v1.HotSeat
 */
export type HotSeat = Message<"rgs.table.v1.HotSeat"> & {
    /**
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * @generated from field: int32 hot = 2;
     */
    hot: number;
};
/**
 * Describes the message rgs.table.v1.HotSeat.
 * Use `create(HotSeatSchema)` to create a new message.
 */
export declare const HotSeatSchema: GenMessage<HotSeat>;
/**
 * @generated from message rgs.table.v1.RoundFinished
 */
export type RoundFinished = Message<"rgs.table.v1.RoundFinished"> & {
    /**
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * Each seated player's stake and payout (stakes returned included), and the watching
     * player's own when they bet only behind (other Bet Behind players' are not listed).
     *
     * @generated from field: repeated rgs.table.v1.PlayerResult results = 2;
     */
    results: PlayerResult[];
    /**
     * @generated from field: repeated rgs.table.v1.HotSeat hot = 3;
     */
    hot: HotSeat[];
    /**
     * The round's fairness, its server seed revealed and its cards in the order they left the
     * shoe.
     *
     * @generated from field: rgs.table.v1.TableFairness fair = 4;
     */
    fair?: TableFairness | undefined;
    /**
     * @generated from field: string next_commitment = 5;
     */
    nextCommitment: string;
};
/**
 * Describes the message rgs.table.v1.RoundFinished.
 * Use `create(RoundFinishedSchema)` to create a new message.
 */
export declare const RoundFinishedSchema: GenMessage<RoundFinished>;
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
        /**
         * With `batch_events`: the next events, oldest first (never empty).
         *
         * @generated from field: rgs.table.v1.TableEvents events = 3;
         */
        value: TableEvents;
        case: "events";
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
 * Consecutive events of a table, oldest first.
 *
 * @generated from message rgs.table.v1.TableEvents
 */
export type TableEvents = Message<"rgs.table.v1.TableEvents"> & {
    /**
     * @generated from field: repeated rgs.table.v1.TableEvent events = 1;
     */
    events: TableEvent[];
};
/**
 * Describes the message rgs.table.v1.TableEvents.
 * Use `create(TableEventsSchema)` to create a new message.
 */
export declare const TableEventsSchema: GenMessage<TableEvents>;
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
    /**
     * A free bet (the operator's grant id, docs/freebets.md) staked on this bet's main stake,
     * which must equal its value (FREE_BET_VALUE_MISMATCH): on the player's own seat only
     * (INVALID_BET on a Bet Behind). The free stake is not debited; the side bets are.
     *
     * @generated from field: string free_bet_id = 10;
     */
    freeBetId: string;
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
     * The caller's balance after the money the command moved (a stake taken, a payment made),
     * when the wallet gave it.
     *
     * @generated from field: optional int64 balance = 2;
     */
    balance?: bigint | undefined;
    /**
     * The table as the command's commit left it.
     *
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
 * One of the calling operator's players' money in a table round.
 *
 * @generated from message rgs.table.v1.PlayerShare
 */
export type PlayerShare = Message<"rgs.table.v1.PlayerShare"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * The stakes that played (the settlement's) and what they were paid.
     *
     * @generated from field: int64 staked = 2;
     */
    staked: bigint;
    /**
     * @generated from field: int64 paid = 3;
     */
    paid: bigint;
    /**
     * Stakes the round returned: a Bet Behind on a seat that sat out or was given back, a bet
     * that reached a closed table, every stake of a round dealt no card.
     *
     * @generated from field: int64 refunded = 4;
     */
    refunded: bigint;
};
/**
 * Describes the message rgs.table.v1.PlayerShare.
 * Use `create(PlayerShareSchema)` to create a new message.
 */
export declare const PlayerShareSchema: GenMessage<PlayerShare>;
/**
 * A wallet movement of one of the calling operator's players in a table round.
 *
 * @generated from message rgs.table.v1.PlayerMovement
 */
export type PlayerMovement = Message<"rgs.table.v1.PlayerMovement"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * The RGS's deterministic transaction id (the wallet saw this one).
     *
     * @generated from field: string transaction_id = 2;
     */
    transactionId: string;
    /**
     * `debit`, `credit` or `rollback` (a refund of the debit it names).
     *
     * @generated from field: string kind = 3;
     */
    kind: string;
    /**
     * @generated from field: int64 amount = 4;
     */
    amount: bigint;
    /**
     * `pending`, `applied`, `booked`, `refused`, `unknown` or `rolled_back`.
     *
     * @generated from field: string status = 5;
     */
    status: string;
    /**
     * The balance after it, as the wallet reported it (0 when it did not).
     *
     * @generated from field: int64 balance_after = 6;
     */
    balanceAfter: bigint;
    /**
     * The debit a rollback returns.
     *
     * @generated from field: string debit_transaction_id = 7;
     */
    debitTransactionId: string;
};
/**
 * Describes the message rgs.table.v1.PlayerMovement.
 * Use `create(PlayerMovementSchema)` to create a new message.
 */
export declare const PlayerMovementSchema: GenMessage<PlayerMovement>;
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
    /**
     * Once the round is over: every card that left the shoe, in the order it did (burned cards
     * and the hole card included).
     *
     * @generated from field: repeated string dealt_cards = 9;
     */
    dealtCards: string[];
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
     * `settled`, `voided`, or `not_dealt` (betting closed with Bet Behinds only: each returned).
     *
     * @generated from field: string status = 4;
     */
    status: string;
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
    /**
     * The round's events, hole card included, numbered from 1: every player's stakes and
     * results, the calling operator's players with their ids (TablePlayer.player_id), others by
     * display name. Its card_dealt events, in order, are the round's cards (`rgs verify` checks
     * them).
     *
     * @generated from field: repeated rgs.table.v1.TableEvent events = 8;
     */
    events: TableEvent[];
    /**
     * Every wallet movement of the calling operator's players in the round: by player, each
     * player's oldest first.
     *
     * @generated from field: repeated rgs.table.v1.PlayerMovement movements = 9;
     */
    movements: PlayerMovement[];
    /**
     * The table the round was played at.
     *
     * @generated from field: string table_id = 10;
     */
    tableId: string;
};
/**
 * Describes the message rgs.table.v1.GetTableRoundResponse.
 * Use `create(GetTableRoundResponseSchema)` to create a new message.
 */
export declare const GetTableRoundResponseSchema: GenMessage<GetTableRoundResponse>;
/**
 * @generated from enum rgs.table.v1.TablePhase
 */
export declare enum TablePhase {
    /**
     * @generated from enum value: TABLE_PHASE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * No bet yet: the first bet opens betting.
     *
     * @generated from enum value: TABLE_PHASE_IDLE = 1;
     */
    IDLE = 1,
    /**
     * @generated from enum value: TABLE_PHASE_BETTING = 2;
     */
    BETTING = 2,
    /**
     * @generated from enum value: TABLE_PHASE_INSURANCE = 3;
     */
    INSURANCE = 3,
    /**
     * @generated from enum value: TABLE_PHASE_PLAYING = 4;
     */
    PLAYING = 4
}
/**
 * Describes the enum rgs.table.v1.TablePhase.
 */
export declare const TablePhaseSchema: GenEnum<TablePhase>;
/**
 * Why a seat was given back (docs/tables.md, "Seats").
 *
 * @generated from enum rgs.table.v1.SeatRelease
 */
export declare enum SeatRelease {
    /**
     * @generated from enum value: SEAT_RELEASE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Its player left it (with a bet in play: when the round ended).
     *
     * @generated from enum value: SEAT_RELEASE_LEFT = 1;
     */
    LEFT = 1,
    /**
     * It sat out the table's sit_out_rounds dealt rounds in a row.
     *
     * @generated from enum value: SEAT_RELEASE_SAT_OUT = 2;
     */
    SAT_OUT = 2,
    /**
     * Its player neither watched the table nor acted at it for the table's away_s seconds.
     *
     * @generated from enum value: SEAT_RELEASE_AWAY = 3;
     */
    AWAY = 3,
    /**
     * Its player's session expired.
     *
     * @generated from enum value: SEAT_RELEASE_SESSION_EXPIRED = 4;
     */
    SESSION_EXPIRED = 4
}
/**
 * Describes the enum rgs.table.v1.SeatRelease.
 */
export declare const SeatReleaseSchema: GenEnum<SeatRelease>;
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
