import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file rgs/blackjack/v1/blackjack.proto.
 */
export declare const file_rgs_blackjack_v1_blackjack: GenFile;
/**
 * RedeemLaunchRequest carries the launch code from the launch URL's fragment.
 *
 * @generated from message rgs.blackjack.v1.RedeemLaunchRequest
 */
export type RedeemLaunchRequest = Message<"rgs.blackjack.v1.RedeemLaunchRequest"> & {
    /**
     * `l1.` and 43 characters, as in `#launch=...`.
     *
     * @generated from field: string launch_code = 1;
     */
    launchCode: string;
};
/**
 * Describes the message rgs.blackjack.v1.RedeemLaunchRequest.
 * Use `create(RedeemLaunchRequestSchema)` to create a new message.
 */
export declare const RedeemLaunchRequestSchema: GenMessage<RedeemLaunchRequest>;
/**
 * RedeemLaunchResponse is the launched session and what the launch asked for.
 *
 * @generated from message rgs.blackjack.v1.RedeemLaunchResponse
 */
export type RedeemLaunchResponse = Message<"rgs.blackjack.v1.RedeemLaunchResponse"> & {
    /**
     * The session's secret, sent as `authorization: Bearer <session_token>`.
     *
     * @generated from field: string session_token = 1;
     */
    sessionToken: string;
    /**
     * @generated from field: string session_id = 2;
     */
    sessionId: string;
    /**
     * @generated from field: google.protobuf.Timestamp expires_at = 3;
     */
    expiresAt?: Timestamp | undefined;
    /**
     * @generated from field: string currency = 4;
     */
    currency: string;
    /**
     * The balance (virtual in demo play); unset when the wallet did not answer.
     *
     * @generated from field: optional int64 balance = 5;
     */
    balance?: bigint | undefined;
    /**
     * @generated from field: string next_commitment = 6;
     */
    nextCommitment: string;
    /**
     * @generated from field: string brand_id = 7;
     */
    brandId: string;
    /**
     * The game to open: a variant, or a shared table (one of them is set).
     *
     * @generated from field: string variant_id = 8;
     */
    variantId: string;
    /**
     * @generated from field: string table_id = 9;
     */
    tableId: string;
    /**
     * BCP 47 language tag (en, de, es).
     *
     * @generated from field: string language = 10;
     */
    language: string;
    /**
     * Where "Lobby" and "Deposit" go (top window); empty: not shown.
     *
     * @generated from field: string lobby_url = 11;
     */
    lobbyUrl: string;
    /**
     * @generated from field: string cashier_url = 12;
     */
    cashierUrl: string;
    /**
     * desktop or mobile.
     *
     * @generated from field: string device = 13;
     */
    device: string;
    /**
     * Demo play: virtual money, no wallet, shown as DEMO.
     *
     * @generated from field: bool demo = 14;
     */
    demo: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.RedeemLaunchResponse.
 * Use `create(RedeemLaunchResponseSchema)` to create a new message.
 */
export declare const RedeemLaunchResponseSchema: GenMessage<RedeemLaunchResponse>;
/**
 * TopUpDemoBalanceRequest asks for a demo session's balance to be topped up.
 *
 * @generated from message rgs.blackjack.v1.TopUpDemoBalanceRequest
 */
export type TopUpDemoBalanceRequest = Message<"rgs.blackjack.v1.TopUpDemoBalanceRequest"> & {};
/**
 * Describes the message rgs.blackjack.v1.TopUpDemoBalanceRequest.
 * Use `create(TopUpDemoBalanceRequestSchema)` to create a new message.
 */
export declare const TopUpDemoBalanceRequestSchema: GenMessage<TopUpDemoBalanceRequest>;
/**
 * TopUpDemoBalanceResponse is the demo balance after the top-up.
 *
 * @generated from message rgs.blackjack.v1.TopUpDemoBalanceResponse
 */
export type TopUpDemoBalanceResponse = Message<"rgs.blackjack.v1.TopUpDemoBalanceResponse"> & {
    /**
     * @generated from field: int64 balance = 1;
     */
    balance: bigint;
    /**
     * @generated from field: string currency = 2;
     */
    currency: string;
};
/**
 * Describes the message rgs.blackjack.v1.TopUpDemoBalanceResponse.
 * Use `create(TopUpDemoBalanceResponseSchema)` to create a new message.
 */
export declare const TopUpDemoBalanceResponseSchema: GenMessage<TopUpDemoBalanceResponse>;
/**
 * ListVariantsRequest asks for the session brand's variants.
 *
 * @generated from message rgs.blackjack.v1.ListVariantsRequest
 */
export type ListVariantsRequest = Message<"rgs.blackjack.v1.ListVariantsRequest"> & {};
/**
 * Describes the message rgs.blackjack.v1.ListVariantsRequest.
 * Use `create(ListVariantsRequestSchema)` to create a new message.
 */
export declare const ListVariantsRequestSchema: GenMessage<ListVariantsRequest>;
/**
 * ListVariantsResponse lists the variants the brand offers.
 *
 * @generated from message rgs.blackjack.v1.ListVariantsResponse
 */
export type ListVariantsResponse = Message<"rgs.blackjack.v1.ListVariantsResponse"> & {
    /**
     * The variants, in the order of the brand configuration.
     *
     * @generated from field: repeated rgs.blackjack.v1.Variant variants = 1;
     */
    variants: Variant[];
    /**
     * ISO 4217 code of the session's currency (all amounts are minor units of it).
     *
     * @generated from field: string currency = 2;
     */
    currency: string;
    /**
     * The player's most recent settled round of each offered variant that has one, so a client
     * can offer Rebet (the same stakes) and Ride Bet (the stakes plus the last win).
     *
     * @generated from field: repeated rgs.blackjack.v1.LastRound last_rounds = 3;
     */
    lastRounds: LastRound[];
    /**
     * The player's wallet balance in minor units, when the wallet answered; unset when it did not
     * (the variants are listed all the same: ask GetBalance again later).
     *
     * @generated from field: optional int64 balance = 4;
     */
    balance?: bigint | undefined;
    /**
     * The commitment (SHA-256 of the server seed, lower-case hex) of the session's next round: the
     * round the next Deal deals. Empty for a session opened before provably fair rounds (its
     * first Deal commits one). See Fairness.
     *
     * @generated from field: string next_commitment = 5;
     */
    nextCommitment: string;
    /**
     * The player's free bets left in the session's brand and currency (docs/freebets.md).
     *
     * @generated from field: repeated rgs.blackjack.v1.FreeBet free_bets = 6;
     */
    freeBets: FreeBet[];
    /**
     * A demo session: virtual money, no wallet (docs/operators.md, demo play).
     *
     * @generated from field: bool demo = 30;
     */
    demo: boolean;
    /**
     * The language the session was launched in (BCP 47: en, de, es; empty: the session was not
     * launched, the client's own default). The lobby entries' words are in it.
     *
     * @generated from field: string language = 31;
     */
    language: string;
};
/**
 * Describes the message rgs.blackjack.v1.ListVariantsResponse.
 * Use `create(ListVariantsResponseSchema)` to create a new message.
 */
export declare const ListVariantsResponseSchema: GenMessage<ListVariantsResponse>;
/**
 * LastRound is a player's most recent settled round of one variant.
 *
 * @generated from message rgs.blackjack.v1.LastRound
 */
export type LastRound = Message<"rgs.blackjack.v1.LastRound"> & {
    /**
     * Variant id.
     *
     * @generated from field: string variant_id = 1;
     */
    variantId: string;
    /**
     * Round id.
     *
     * @generated from field: string round_id = 2;
     */
    roundId: string;
    /**
     * The bets that round placed, one per box.
     *
     * @generated from field: repeated rgs.blackjack.v1.BoxBet boxes = 3;
     */
    boxes: BoxBet[];
    /**
     * Everything staked in that round, in minor units.
     *
     * @generated from field: int64 total_staked = 4;
     */
    totalStaked: bigint;
    /**
     * Everything paid back in that round (stakes returned plus wins), in minor units.
     *
     * @generated from field: int64 total_paid = 5;
     */
    totalPaid: bigint;
};
/**
 * Describes the message rgs.blackjack.v1.LastRound.
 * Use `create(LastRoundSchema)` to create a new message.
 */
export declare const LastRoundSchema: GenMessage<LastRound>;
/**
 * TableLimits are stake limits in minor units per bet type.
 *
 * @generated from message rgs.blackjack.v1.TableLimits
 */
export type TableLimits = Message<"rgs.blackjack.v1.TableLimits"> & {
    /**
     * Smallest main bet.
     *
     * @generated from field: int64 main_min = 1;
     */
    mainMin: bigint;
    /**
     * Largest main bet.
     *
     * @generated from field: int64 main_max = 2;
     */
    mainMax: bigint;
    /**
     * Smallest side bet.
     *
     * @generated from field: int64 side_min = 3;
     */
    sideMin: bigint;
    /**
     * Largest side bet.
     *
     * @generated from field: int64 side_max = 4;
     */
    sideMax: bigint;
};
/**
 * Describes the message rgs.blackjack.v1.TableLimits.
 * Use `create(TableLimitsSchema)` to create a new message.
 */
export declare const TableLimitsSchema: GenMessage<TableLimits>;
/**
 * PaytableLine is one paying line of a side bet.
 *
 * @generated from message rgs.blackjack.v1.PaytableLine
 */
export type PaytableLine = Message<"rgs.blackjack.v1.PaytableLine"> & {
    /**
     * Name of the line (e.g. `perfect`, `suited_trips`, `dealer_wins`).
     *
     * @generated from field: string line = 1;
     */
    line: string;
    /**
     * Pays `pays` to 1.
     *
     * @generated from field: int64 pays = 2;
     */
    pays: bigint;
};
/**
 * Describes the message rgs.blackjack.v1.PaytableLine.
 * Use `create(PaytableLineSchema)` to create a new message.
 */
export declare const PaytableLineSchema: GenMessage<PaytableLine>;
/**
 * SideBetPaytable is the paytable of one side bet the variant offers.
 *
 * @generated from message rgs.blackjack.v1.SideBetPaytable
 */
export type SideBetPaytable = Message<"rgs.blackjack.v1.SideBetPaytable"> & {
    /**
     * Which side bet.
     *
     * @generated from field: rgs.blackjack.v1.SideBetKind kind = 1;
     */
    kind: SideBetKind;
    /**
     * The paying lines.
     *
     * @generated from field: repeated rgs.blackjack.v1.PaytableLine lines = 2;
     */
    lines: PaytableLine[];
};
/**
 * Describes the message rgs.blackjack.v1.SideBetPaytable.
 * Use `create(SideBetPaytableSchema)` to create a new message.
 */
export declare const SideBetPaytableSchema: GenMessage<SideBetPaytable>;
/**
 * Variant is one blackjack variant with everything a client needs to draw its table.
 *
 * @generated from message rgs.blackjack.v1.Variant
 */
export type Variant = Message<"rgs.blackjack.v1.Variant"> & {
    /**
     * Variant id (e.g. `classic-resplit`); used in DealRequest.
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * Display name.
     *
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * Decks in the shoe.
     *
     * @generated from field: int32 decks = 3;
     */
    decks: number;
    /**
     * Boxes a player may bet on at once.
     *
     * @generated from field: int32 max_boxes = 4;
     */
    maxBoxes: number;
    /**
     * Dealer hits soft 17.
     *
     * @generated from field: bool dealer_hits_soft_17 = 5;
     */
    dealerHitsSoft17: boolean;
    /**
     * Dealer takes a hole card.
     *
     * @generated from field: bool hole_card = 6;
     */
    holeCard: boolean;
    /**
     * Peek rule: `ace_and_ten`, `ace_only` or `never`.
     *
     * @generated from field: string peek = 7;
     */
    peek: string;
    /**
     * Blackjack pays numerator to denominator (3 to 2 is 3 and 2).
     *
     * @generated from field: int32 blackjack_pays_numerator = 8;
     */
    blackjackPaysNumerator: number;
    /**
     * See blackjack_pays_numerator.
     *
     * @generated from field: int32 blackjack_pays_denominator = 9;
     */
    blackjackPaysDenominator: number;
    /**
     * Insurance pays this to 1 (0 when the variant has no insurance).
     *
     * @generated from field: int32 insurance_pays = 10;
     */
    insurancePays: number;
    /**
     * Late surrender is offered.
     *
     * @generated from field: bool late_surrender = 11;
     */
    lateSurrender: boolean;
    /**
     * Most hands a box can hold after splits.
     *
     * @generated from field: int32 max_hands = 12;
     */
    maxHands: number;
    /**
     * Card-count Charlie (0 for none).
     *
     * @generated from field: int32 charlie_cards = 13;
     */
    charlieCards: number;
    /**
     * Dealer total that pushes every live hand (0 for none; 22 in Power Blackjack).
     *
     * @generated from field: int32 dealer_push_total = 14;
     */
    dealerPushTotal: number;
    /**
     * Safety Net is offered.
     *
     * @generated from field: bool safety_net = 15;
     */
    safetyNet: boolean;
    /**
     * Cash Out is offered.
     *
     * @generated from field: bool cash_out = 16;
     */
    cashOut: boolean;
    /**
     * The brand's stake limits for this variant.
     *
     * @generated from field: rgs.blackjack.v1.TableLimits limits = 17;
     */
    limits?: TableLimits | undefined;
    /**
     * The side bets and their paytables.
     *
     * @generated from field: repeated rgs.blackjack.v1.SideBetPaytable side_bets = 18;
     */
    sideBets: SideBetPaytable[];
    /**
     * Insurance settings a player may choose.
     *
     * @generated from field: repeated rgs.blackjack.v1.InsuranceOffer insurance_offers = 19;
     */
    insuranceOffers: InsuranceOffer[];
    /**
     * Double on any number of cards.
     *
     * @generated from field: bool double_any_cards = 20;
     */
    doubleAnyCards: boolean;
    /**
     * Double after split.
     *
     * @generated from field: bool double_after_split = 21;
     */
    doubleAfterSplit: boolean;
    /**
     * Whether Deal takes new rounds of the variant now (game controls, docs/controls.md).
     *
     * @generated from field: rgs.blackjack.v1.Availability availability = 30;
     */
    availability?: Availability | undefined;
    /**
     * What an operator's lobby shows of the variant for the session's brand (docs/api.md, "A
     * lobby's catalogue").
     *
     * @generated from field: rgs.blackjack.v1.LobbyEntry lobby = 40;
     */
    lobby?: LobbyEntry | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.Variant.
 * Use `create(VariantSchema)` to create a new message.
 */
export declare const VariantSchema: GenMessage<Variant>;
/**
 * LobbyEntry is what an operator's lobby shows of a variant (ListVariants) or a shared table
 * (ListTables): a name, a line about it, its RTP, its limits, its features and a picture.
 *
 * @generated from message rgs.blackjack.v1.LobbyEntry
 */
export type LobbyEntry = Message<"rgs.blackjack.v1.LobbyEntry"> & {
    /**
     * Display name (the variant's name; for a table, the variant's name and the table id).
     *
     * @generated from field: string display_name = 1;
     */
    displayName: string;
    /**
     * One line about the game, in English (a lobby in another language writes its own).
     *
     * @generated from field: string description = 2;
     */
    description: string;
    /**
     * The brand's theoretical RTP of the main game in percent, optimal strategy, from the PAR
     * sheet of the rules the brand plays (its deck count): e.g. 99.29. Side bets have their own
     * (docs/variants.md).
     *
     * @generated from field: double rtp_percent = 3;
     */
    rtpPercent: number;
    /**
     * The stake limits in each currency the brand plays (a table: its one currency).
     *
     * @generated from field: repeated rgs.blackjack.v1.CurrencyLimits limits = 4;
     */
    limits: CurrencyLimits[];
    /**
     * What the game offers.
     *
     * @generated from field: rgs.blackjack.v1.LobbyFeatures features = 5;
     */
    features?: LobbyFeatures | undefined;
    /**
     * Path of the game's thumbnail (SVG) on the browser edge, e.g.
     * `/thumbnails/vip-platinum.svg`: resolve it against the edge's origin.
     *
     * @generated from field: string thumbnail_url = 6;
     */
    thumbnailUrl: string;
};
/**
 * Describes the message rgs.blackjack.v1.LobbyEntry.
 * Use `create(LobbyEntrySchema)` to create a new message.
 */
export declare const LobbyEntrySchema: GenMessage<LobbyEntry>;
/**
 * CurrencyLimits are the stake limits in one currency, in its minor units.
 *
 * @generated from message rgs.blackjack.v1.CurrencyLimits
 */
export type CurrencyLimits = Message<"rgs.blackjack.v1.CurrencyLimits"> & {
    /**
     * ISO 4217 code.
     *
     * @generated from field: string currency = 1;
     */
    currency: string;
    /**
     * The limits.
     *
     * @generated from field: rgs.blackjack.v1.TableLimits limits = 2;
     */
    limits?: TableLimits | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.CurrencyLimits.
 * Use `create(CurrencyLimitsSchema)` to create a new message.
 */
export declare const CurrencyLimitsSchema: GenMessage<CurrencyLimits>;
/**
 * LobbyFeatures are the features a lobby lists for a game.
 *
 * @generated from message rgs.blackjack.v1.LobbyFeatures
 */
export type LobbyFeatures = Message<"rgs.blackjack.v1.LobbyFeatures"> & {
    /**
     * The side bets offered.
     *
     * @generated from field: repeated rgs.blackjack.v1.SideBetKind side_bets = 1;
     */
    sideBets: SideBetKind[];
    /**
     * Cash Out is offered.
     *
     * @generated from field: bool cash_out = 2;
     */
    cashOut: boolean;
    /**
     * Bet Behind is offered (shared tables).
     *
     * @generated from field: bool bet_behind = 3;
     */
    betBehind: boolean;
    /**
     * Shared tables only: seats free now (0 for a solo variant).
     *
     * @generated from field: int32 seats_free = 4;
     */
    seatsFree: number;
    /**
     * Shared tables only: seats in all (0 for a solo variant).
     *
     * @generated from field: int32 seats = 5;
     */
    seats: number;
};
/**
 * Describes the message rgs.blackjack.v1.LobbyFeatures.
 * Use `create(LobbyFeaturesSchema)` to create a new message.
 */
export declare const LobbyFeaturesSchema: GenMessage<LobbyFeatures>;
/**
 * Availability says whether new rounds are taken: a variant, brand or table may be disabled by
 * its operator or put under maintenance by the platform (Deal and bets are then refused
 * GAME_DISABLED or MAINTENANCE; a round in play finishes).
 *
 * @generated from message rgs.blackjack.v1.Availability
 */
export type Availability = Message<"rgs.blackjack.v1.Availability"> & {
    /**
     * `open`, `disabled` or `maintenance`.
     *
     * @generated from field: string state = 1;
     */
    state: string;
    /**
     * The message to show the player (empty when open or none was given).
     *
     * @generated from field: string message = 2;
     */
    message: string;
    /**
     * When the maintenance or disabling ends by itself (unset: until it is lifted).
     *
     * @generated from field: google.protobuf.Timestamp ends_at = 3;
     */
    endsAt?: Timestamp | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.Availability.
 * Use `create(AvailabilitySchema)` to create a new message.
 */
export declare const AvailabilitySchema: GenMessage<Availability>;
/**
 * BoxBet is a player's bet on one box.
 *
 * @generated from message rgs.blackjack.v1.BoxBet
 */
export type BoxBet = Message<"rgs.blackjack.v1.BoxBet"> & {
    /**
     * Seat (1-based).
     *
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * Main bet in minor units.
     *
     * @generated from field: int64 stake = 2;
     */
    stake: bigint;
    /**
     * 20+ Bonus side bet (0 for none).
     *
     * @generated from field: int64 twenty_plus = 3;
     */
    twentyPlus: bigint;
    /**
     * Perfect Pairs side bet (0 for none).
     *
     * @generated from field: int64 perfect_pairs = 4;
     */
    perfectPairs: bigint;
    /**
     * 21+3 side bet (0 for none).
     *
     * @generated from field: int64 twenty_one_plus_three = 5;
     */
    twentyOnePlusThree: bigint;
    /**
     * When insurance is offered to this box.
     *
     * @generated from field: rgs.blackjack.v1.InsuranceOffer insurance_offer = 6;
     */
    insuranceOffer: InsuranceOffer;
    /**
     * Safety Net on (where offered).
     *
     * @generated from field: bool safety_net = 7;
     */
    safetyNet: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.BoxBet.
 * Use `create(BoxBetSchema)` to create a new message.
 */
export declare const BoxBetSchema: GenMessage<BoxBet>;
/**
 * AllowedAction is a decision open now, with what it costs or offers.
 *
 * @generated from message rgs.blackjack.v1.AllowedAction
 */
export type AllowedAction = Message<"rgs.blackjack.v1.AllowedAction"> & {
    /**
     * The decision.
     *
     * @generated from field: rgs.blackjack.v1.Action action = 1;
     */
    action: Action;
    /**
     * Stake the decision adds (double, split, insurance), in minor units.
     *
     * @generated from field: int64 cost = 2;
     */
    cost: bigint;
    /**
     * Cash Out amount offered, in minor units.
     *
     * @generated from field: int64 offer = 3;
     */
    offer: bigint;
    /**
     * Safety Net warning: confirm before hitting.
     *
     * @generated from field: string warning = 4;
     */
    warning: string;
    /**
     * Brands with hints on: the decision's exact expected result in main bets (e.g. -0.157 loses
     * 15.7 % of a main bet on average), taking it and playing on optimally, from the
     * composition-dependent analysis of the box's cards against the up card. Every open decision
     * has one: a split hand's is that hand's alone; insurance's (on insurance_allowed) and Power
     * Double's keep/replace count the whole hand (docs/api.md). Unset when the brand shows no hints.
     *
     * @generated from field: optional double expected_value = 5;
     */
    expectedValue?: number | undefined;
    /**
     * Brands with hints on: this is the decision with the highest expected_value.
     *
     * @generated from field: bool best = 6;
     */
    best: boolean;
    /**
     * Brands with hints on, Cash Out only: the fair value the offer was priced from (the stake
     * times the fair return of the hand's total against the up card), in minor units.
     *
     * @generated from field: int64 fair_value = 7;
     */
    fairValue: bigint;
};
/**
 * Describes the message rgs.blackjack.v1.AllowedAction.
 * Use `create(AllowedActionSchema)` to create a new message.
 */
export declare const AllowedActionSchema: GenMessage<AllowedAction>;
/**
 * Hand is one player hand.
 *
 * @generated from message rgs.blackjack.v1.Hand
 */
export type Hand = Message<"rgs.blackjack.v1.Hand"> & {
    /**
     * Index of the hand within its box.
     *
     * @generated from field: int32 index = 1;
     */
    index: number;
    /**
     * Card codes (rank then suit, e.g. `AS`, `TD`).
     *
     * @generated from field: repeated string cards = 2;
     */
    cards: string[];
    /**
     * Best total.
     *
     * @generated from field: int32 total = 3;
     */
    total: number;
    /**
     * The total counts an ace as 11.
     *
     * @generated from field: bool soft = 4;
     */
    soft: boolean;
    /**
     * Stake on the hand in minor units.
     *
     * @generated from field: int64 stake = 5;
     */
    stake: bigint;
    /**
     * Status.
     *
     * @generated from field: rgs.blackjack.v1.HandStatus status = 6;
     */
    status: HandStatus;
    /**
     * Outcome once settled.
     *
     * @generated from field: rgs.blackjack.v1.Outcome outcome = 7;
     */
    outcome: Outcome;
    /**
     * Amount paid back (stake included) in minor units.
     *
     * @generated from field: int64 payout = 8;
     */
    payout: bigint;
    /**
     * The hand came from a split.
     *
     * @generated from field: bool from_split = 9;
     */
    fromSplit: boolean;
    /**
     * The hand was doubled.
     *
     * @generated from field: bool doubled = 10;
     */
    doubled: boolean;
    /**
     * Decisions open to this hand now.
     *
     * @generated from field: repeated rgs.blackjack.v1.AllowedAction allowed = 11;
     */
    allowed: AllowedAction[];
};
/**
 * Describes the message rgs.blackjack.v1.Hand.
 * Use `create(HandSchema)` to create a new message.
 */
export declare const HandSchema: GenMessage<Hand>;
/**
 * SideBetResult is a side bet's stake and result.
 *
 * @generated from message rgs.blackjack.v1.SideBetResult
 */
export type SideBetResult = Message<"rgs.blackjack.v1.SideBetResult"> & {
    /**
     * Which side bet.
     *
     * @generated from field: rgs.blackjack.v1.SideBetKind kind = 1;
     */
    kind: SideBetKind;
    /**
     * Stake in minor units.
     *
     * @generated from field: int64 stake = 2;
     */
    stake: bigint;
    /**
     * Paytable line hit (`lose` when none), once settled.
     *
     * @generated from field: string line = 3;
     */
    line: string;
    /**
     * Amount paid back (stake included) in minor units.
     *
     * @generated from field: int64 payout = 4;
     */
    payout: bigint;
    /**
     * Settled yet.
     *
     * @generated from field: bool settled = 5;
     */
    settled: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.SideBetResult.
 * Use `create(SideBetResultSchema)` to create a new message.
 */
export declare const SideBetResultSchema: GenMessage<SideBetResult>;
/**
 * Box is one box of the table.
 *
 * @generated from message rgs.blackjack.v1.Box
 */
export type Box = Message<"rgs.blackjack.v1.Box"> & {
    /**
     * Seat (1-based).
     *
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * Main bet in minor units.
     *
     * @generated from field: int64 stake = 2;
     */
    stake: bigint;
    /**
     * Hands, in play order.
     *
     * @generated from field: repeated rgs.blackjack.v1.Hand hands = 3;
     */
    hands: Hand[];
    /**
     * Side bets.
     *
     * @generated from field: repeated rgs.blackjack.v1.SideBetResult side_bets = 4;
     */
    sideBets: SideBetResult[];
    /**
     * Insurance was offered.
     *
     * @generated from field: bool insurance_offered = 5;
     */
    insuranceOffered: boolean;
    /**
     * Insurance stake in minor units.
     *
     * @generated from field: int64 insurance_stake = 6;
     */
    insuranceStake: bigint;
    /**
     * Insurance payout in minor units.
     *
     * @generated from field: int64 insurance_payout = 7;
     */
    insurancePayout: bigint;
    /**
     * Insurance decisions open now (with the insurance cost).
     *
     * @generated from field: repeated rgs.blackjack.v1.AllowedAction insurance_allowed = 8;
     */
    insuranceAllowed: AllowedAction[];
    /**
     * At a shared table: the Bet Behinds on the box (solo rounds have none).
     *
     * @generated from field: repeated rgs.blackjack.v1.BoxBehind behind = 9;
     */
    behind: BoxBehind[];
};
/**
 * Describes the message rgs.blackjack.v1.Box.
 * Use `create(BoxSchema)` to create a new message.
 */
export declare const BoxSchema: GenMessage<Box>;
/**
 * A Bet Behind on a box at a shared table: everything it staked and was paid so far.
 *
 * @generated from message rgs.blackjack.v1.BoxBehind
 */
export type BoxBehind = Message<"rgs.blackjack.v1.BoxBehind"> & {
    /**
     * How the table shows the bettor: a nickname, or a pseudonym stable per player and table.
     *
     * @generated from field: string display_name = 1;
     */
    displayName: string;
    /**
     * The caller's own Bet Behind (decided by the server from the session).
     *
     * @generated from field: bool you = 2;
     */
    you: boolean;
    /**
     * @generated from field: int64 staked = 3;
     */
    staked: bigint;
    /**
     * @generated from field: int64 paid = 4;
     */
    paid: bigint;
    /**
     * @generated from field: bool follow_double = 5;
     */
    followDouble: boolean;
    /**
     * @generated from field: bool follow_split = 6;
     */
    followSplit: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.BoxBehind.
 * Use `create(BoxBehindSchema)` to create a new message.
 */
export declare const BoxBehindSchema: GenMessage<BoxBehind>;
/**
 * HandRef names a hand.
 *
 * @generated from message rgs.blackjack.v1.HandRef
 */
export type HandRef = Message<"rgs.blackjack.v1.HandRef"> & {
    /**
     * Seat (1-based).
     *
     * @generated from field: int32 seat = 1;
     */
    seat: number;
    /**
     * Hand index within the box.
     *
     * @generated from field: int32 hand = 2;
     */
    hand: number;
};
/**
 * Describes the message rgs.blackjack.v1.HandRef.
 * Use `create(HandRefSchema)` to create a new message.
 */
export declare const HandRefSchema: GenMessage<HandRef>;
/**
 * RoundView is the public state of a round: never the hole card before it is revealed, never the
 * shoe.
 *
 * @generated from message rgs.blackjack.v1.RoundView
 */
export type RoundView = Message<"rgs.blackjack.v1.RoundView"> & {
    /**
     * Round id.
     *
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * Sequence number of the round's state; ActRequest.expected_seq must equal it.
     *
     * @generated from field: int64 seq = 2;
     */
    seq: bigint;
    /**
     * Variant id.
     *
     * @generated from field: string variant_id = 3;
     */
    variantId: string;
    /**
     * Status.
     *
     * @generated from field: rgs.blackjack.v1.RoundStatus status = 4;
     */
    status: RoundStatus;
    /**
     * Dealer cards as far as revealed.
     *
     * @generated from field: repeated string dealer_cards = 5;
     */
    dealerCards: string[];
    /**
     * Dealer total of the revealed cards.
     *
     * @generated from field: int32 dealer_total = 6;
     */
    dealerTotal: number;
    /**
     * The dealer total is soft.
     *
     * @generated from field: bool dealer_soft = 7;
     */
    dealerSoft: boolean;
    /**
     * A hole card is still face down.
     *
     * @generated from field: bool dealer_hole_hidden = 8;
     */
    dealerHoleHidden: boolean;
    /**
     * The boxes.
     *
     * @generated from field: repeated rgs.blackjack.v1.Box boxes = 9;
     */
    boxes: Box[];
    /**
     * The hand whose decision is awaited (unset when none).
     *
     * @generated from field: rgs.blackjack.v1.HandRef to_act = 10;
     */
    toAct?: HandRef | undefined;
    /**
     * Everything staked in the round, in minor units.
     *
     * @generated from field: int64 total_staked = 11;
     */
    totalStaked: bigint;
    /**
     * Everything paid back (stakes returned plus wins), in minor units.
     *
     * @generated from field: int64 total_paid = 12;
     */
    totalPaid: bigint;
    /**
     * The player's wallet balance after the call, in minor units.
     *
     * @generated from field: int64 balance = 13;
     */
    balance: bigint;
    /**
     * ISO 4217 code of the amounts.
     *
     * @generated from field: string currency = 14;
     */
    currency: string;
    /**
     * The win has not been acknowledged by the wallet yet; Settle retries it.
     *
     * @generated from field: bool payment_pending = 15;
     */
    paymentPending: boolean;
    /**
     * How to check that the round's cards were fixed before the bet (docs/rng.md).
     *
     * @generated from field: rgs.blackjack.v1.Fairness fair = 16;
     */
    fair?: Fairness | undefined;
    /**
     * The session's time and money so far, this round included: set for brands whose
     * jurisdiction profile requires clients to show it (UKGC RTS 13C / 2E; docs/jurisdictions.md).
     *
     * @generated from field: rgs.blackjack.v1.SessionPosition session = 17;
     */
    session?: SessionPosition | undefined;
    /**
     * How the settled round ended for the player (unset before it is settled): a client
     * celebrates only RESULT_CLASS_WIN (UKGC RTS 14C).
     *
     * @generated from field: rgs.blackjack.v1.ResultClass result = 18;
     */
    result: ResultClass;
    /**
     * The player's free bets left in the session's brand and currency (docs/freebets.md).
     *
     * @generated from field: repeated rgs.blackjack.v1.FreeBet free_bets = 19;
     */
    freeBets: FreeBet[];
    /**
     * A round of demo play (virtual money; never in reports, GGR or RTP monitoring).
     *
     * @generated from field: bool demo = 30;
     */
    demo: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.RoundView.
 * Use `create(RoundViewSchema)` to create a new message.
 */
export declare const RoundViewSchema: GenMessage<RoundView>;
/**
 * SessionPosition is a session's time and money so far, exactly as the journal records its
 * wallet movements (minor units of the session's currency).
 *
 * @generated from message rgs.blackjack.v1.SessionPosition
 */
export type SessionPosition = Message<"rgs.blackjack.v1.SessionPosition"> & {
    /**
     * When the session opened.
     *
     * @generated from field: google.protobuf.Timestamp started_at = 1;
     */
    startedAt?: Timestamp | undefined;
    /**
     * Whole seconds since then.
     *
     * @generated from field: int64 elapsed_s = 2;
     */
    elapsedS: bigint;
    /**
     * Every stake taken in the session.
     *
     * @generated from field: int64 total_staked = 3;
     */
    totalStaked: bigint;
    /**
     * Every win and stake paid back in the session.
     *
     * @generated from field: int64 total_paid = 4;
     */
    totalPaid: bigint;
    /**
     * total_paid - total_staked: negative when the player is down.
     *
     * @generated from field: int64 net_position = 5;
     */
    netPosition: bigint;
};
/**
 * Describes the message rgs.blackjack.v1.SessionPosition.
 * Use `create(SessionPositionSchema)` to create a new message.
 */
export declare const SessionPositionSchema: GenMessage<SessionPosition>;
/**
 * Fairness is a provably fair round's commitment and, once the round is over, its server seed.
 * The round's card order is a documented function of (server_seed, client_seed, round_number,
 * decks); `rgs verify` recomputes it from the operator's recall.
 *
 * @generated from message rgs.blackjack.v1.Fairness
 */
export type Fairness = Message<"rgs.blackjack.v1.Fairness"> & {
    /**
     * False for rounds that cannot be verified: forced cards (test mode) and rounds dealt before
     * provably fair rounds. Their other fields are empty, except next_commitment.
     *
     * @generated from field: bool verifiable = 1;
     */
    verifiable: boolean;
    /**
     * SHA-256 of the server seed, lower-case hex: published before the bet (the previous
     * round's next_commitment, ListVariants or CreateSession).
     *
     * @generated from field: string commitment = 2;
     */
    commitment: string;
    /**
     * The client seed the Deal gave (empty when none was given).
     *
     * @generated from field: string client_seed = 3;
     */
    clientSeed: string;
    /**
     * The round number (the DRBG nonce): 1 for a session's first round, then 2, 3, ...
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
     * The commitment of the seed the session's next round uses.
     *
     * @generated from field: string next_commitment = 7;
     */
    nextCommitment: string;
    /**
     * Once the round is settled or voided (with server_seed): every card that left the shoe, in
     * the order it did, burned cards (Power Blackjack's replaced card) and the hole card included.
     * A fair round's cards are the first len(dealt_cards) cards of the order its seeds give.
     *
     * @generated from field: repeated string dealt_cards = 8;
     */
    dealtCards: string[];
};
/**
 * Describes the message rgs.blackjack.v1.Fairness.
 * Use `create(FairnessSchema)` to create a new message.
 */
export declare const FairnessSchema: GenMessage<Fairness>;
/**
 * DealRequest places the bets of a new round.
 *
 * @generated from message rgs.blackjack.v1.DealRequest
 */
export type DealRequest = Message<"rgs.blackjack.v1.DealRequest"> & {
    /**
     * Client-chosen idempotency key (1-64 characters).
     *
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * Variant to play (from ListVariants).
     *
     * @generated from field: string variant_id = 2;
     */
    variantId: string;
    /**
     * One bet per box.
     *
     * @generated from field: repeated rgs.blackjack.v1.BoxBet boxes = 3;
     */
    boxes: BoxBet[];
    /**
     * Test mode only: card codes dealt first, in order, before the RNG. Refused with
     * PERMISSION_DENIED unless the server runs in test mode.
     *
     * @generated from field: repeated string forced_cards = 4;
     */
    forcedCards: string[];
    /**
     * The player's contribution to the card order of a provably fair round: 0-64 printable ASCII
     * characters (INVALID_ARGUMENT / INVALID_CLIENT_SEED otherwise); empty when not given.
     *
     * @generated from field: string client_seed = 5;
     */
    clientSeed: string;
    /**
     * A free bet to stake on the first box's main bet: the operator's grant id (docs/freebets.md).
     * The box's stake must be the grant's value; the free stake debits nothing and its win
     * credits the winnings only. Empty: none.
     *
     * @generated from field: string free_bet_id = 6;
     */
    freeBetId: string;
};
/**
 * Describes the message rgs.blackjack.v1.DealRequest.
 * Use `create(DealRequestSchema)` to create a new message.
 */
export declare const DealRequestSchema: GenMessage<DealRequest>;
/**
 * DealResponse is the dealt round.
 *
 * @generated from message rgs.blackjack.v1.DealResponse
 */
export type DealResponse = Message<"rgs.blackjack.v1.DealResponse"> & {
    /**
     * The round after the deal (it may already be settled).
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 1;
     */
    round?: RoundView | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.DealResponse.
 * Use `create(DealResponseSchema)` to create a new message.
 */
export declare const DealResponseSchema: GenMessage<DealResponse>;
/**
 * ActRequest is one player decision.
 *
 * @generated from message rgs.blackjack.v1.ActRequest
 */
export type ActRequest = Message<"rgs.blackjack.v1.ActRequest"> & {
    /**
     * Client-chosen idempotency key (1-64 characters).
     *
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * The round.
     *
     * @generated from field: string round_id = 2;
     */
    roundId: string;
    /**
     * The `seq` of the view the decision was taken on; a different current seq is refused with
     * FAILED_PRECONDITION / STALE_SEQ.
     *
     * @generated from field: int64 expected_seq = 3;
     */
    expectedSeq: bigint;
    /**
     * Seat of the hand (or box, for insurance).
     *
     * @generated from field: int32 seat = 4;
     */
    seat: number;
    /**
     * Hand index within the box (0 for insurance).
     *
     * @generated from field: int32 hand = 5;
     */
    hand: number;
    /**
     * The decision.
     *
     * @generated from field: rgs.blackjack.v1.Action action = 6;
     */
    action: Action;
};
/**
 * Describes the message rgs.blackjack.v1.ActRequest.
 * Use `create(ActRequestSchema)` to create a new message.
 */
export declare const ActRequestSchema: GenMessage<ActRequest>;
/**
 * ActResponse is the round after the decision.
 *
 * @generated from message rgs.blackjack.v1.ActResponse
 */
export type ActResponse = Message<"rgs.blackjack.v1.ActResponse"> & {
    /**
     * The round after the decision (dealer play and settlement included when it ended the round).
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 1;
     */
    round?: RoundView | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.ActResponse.
 * Use `create(ActResponseSchema)` to create a new message.
 */
export declare const ActResponseSchema: GenMessage<ActResponse>;
/**
 * SettleRequest finishes a round.
 *
 * @generated from message rgs.blackjack.v1.SettleRequest
 */
export type SettleRequest = Message<"rgs.blackjack.v1.SettleRequest"> & {
    /**
     * Client-chosen idempotency key (1-64 characters).
     *
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * The round.
     *
     * @generated from field: string round_id = 2;
     */
    roundId: string;
};
/**
 * Describes the message rgs.blackjack.v1.SettleRequest.
 * Use `create(SettleRequestSchema)` to create a new message.
 */
export declare const SettleRequestSchema: GenMessage<SettleRequest>;
/**
 * SettleResponse is the finished round.
 *
 * @generated from message rgs.blackjack.v1.SettleResponse
 */
export type SettleResponse = Message<"rgs.blackjack.v1.SettleResponse"> & {
    /**
     * The settled round.
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 1;
     */
    round?: RoundView | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.SettleResponse.
 * Use `create(SettleResponseSchema)` to create a new message.
 */
export declare const SettleResponseSchema: GenMessage<SettleResponse>;
/**
 * GetRoundRequest reads a round.
 *
 * @generated from message rgs.blackjack.v1.GetRoundRequest
 */
export type GetRoundRequest = Message<"rgs.blackjack.v1.GetRoundRequest"> & {
    /**
     * The round; empty for the session player's unfinished round (NOT_FOUND when there is none).
     *
     * @generated from field: string round_id = 1;
     */
    roundId: string;
    /**
     * With round_id empty: when the player has no unfinished round, answer with no round (round
     * unset) instead of NOT_FOUND, so a client asking on start whether there is one to resume
     * logs no error.
     *
     * @generated from field: bool if_unfinished = 2;
     */
    ifUnfinished: boolean;
};
/**
 * Describes the message rgs.blackjack.v1.GetRoundRequest.
 * Use `create(GetRoundRequestSchema)` to create a new message.
 */
export declare const GetRoundRequestSchema: GenMessage<GetRoundRequest>;
/**
 * GetRoundResponse is the round's public view.
 *
 * @generated from message rgs.blackjack.v1.GetRoundResponse
 */
export type GetRoundResponse = Message<"rgs.blackjack.v1.GetRoundResponse"> & {
    /**
     * The round.
     *
     * @generated from field: rgs.blackjack.v1.RoundView round = 1;
     */
    round?: RoundView | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.GetRoundResponse.
 * Use `create(GetRoundResponseSchema)` to create a new message.
 */
export declare const GetRoundResponseSchema: GenMessage<GetRoundResponse>;
/**
 * GetBalanceRequest asks for the session player's balance.
 *
 * @generated from message rgs.blackjack.v1.GetBalanceRequest
 */
export type GetBalanceRequest = Message<"rgs.blackjack.v1.GetBalanceRequest"> & {};
/**
 * Describes the message rgs.blackjack.v1.GetBalanceRequest.
 * Use `create(GetBalanceRequestSchema)` to create a new message.
 */
export declare const GetBalanceRequestSchema: GenMessage<GetBalanceRequest>;
/**
 * AcknowledgeRealityCheckRequest acknowledges the session's reality check.
 *
 * @generated from message rgs.blackjack.v1.AcknowledgeRealityCheckRequest
 */
export type AcknowledgeRealityCheckRequest = Message<"rgs.blackjack.v1.AcknowledgeRealityCheckRequest"> & {};
/**
 * Describes the message rgs.blackjack.v1.AcknowledgeRealityCheckRequest.
 * Use `create(AcknowledgeRealityCheckRequestSchema)` to create a new message.
 */
export declare const AcknowledgeRealityCheckRequestSchema: GenMessage<AcknowledgeRealityCheckRequest>;
/**
 * AcknowledgeRealityCheckResponse is the session's position when the check was acknowledged.
 *
 * @generated from message rgs.blackjack.v1.AcknowledgeRealityCheckResponse
 */
export type AcknowledgeRealityCheckResponse = Message<"rgs.blackjack.v1.AcknowledgeRealityCheckResponse"> & {
    /**
     * The session's time and money so far.
     *
     * @generated from field: rgs.blackjack.v1.SessionPosition session = 1;
     */
    session?: SessionPosition | undefined;
};
/**
 * Describes the message rgs.blackjack.v1.AcknowledgeRealityCheckResponse.
 * Use `create(AcknowledgeRealityCheckResponseSchema)` to create a new message.
 */
export declare const AcknowledgeRealityCheckResponseSchema: GenMessage<AcknowledgeRealityCheckResponse>;
/**
 * GetBalanceResponse is the player's balance as the operator's wallet reported it.
 *
 * @generated from message rgs.blackjack.v1.GetBalanceResponse
 */
export type GetBalanceResponse = Message<"rgs.blackjack.v1.GetBalanceResponse"> & {
    /**
     * Balance in minor units.
     *
     * @generated from field: int64 balance = 1;
     */
    balance: bigint;
    /**
     * ISO 4217 code of the session's currency.
     *
     * @generated from field: string currency = 2;
     */
    currency: string;
    /**
     * A demo session: the balance is virtual money (docs/operators.md, demo play).
     *
     * @generated from field: bool demo = 10;
     */
    demo: boolean;
    /**
     * The language the session was launched in (as ListVariantsResponse.language).
     *
     * @generated from field: string language = 11;
     */
    language: string;
};
/**
 * Describes the message rgs.blackjack.v1.GetBalanceResponse.
 * Use `create(GetBalanceResponseSchema)` to create a new message.
 */
export declare const GetBalanceResponseSchema: GenMessage<GetBalanceResponse>;
/**
 * FreeBet is a grant of free bets the player may still stake: Deal with free_bet_id = grant_id
 * and the first box's stake = value.
 *
 * @generated from message rgs.blackjack.v1.FreeBet
 */
export type FreeBet = Message<"rgs.blackjack.v1.FreeBet"> & {
    /**
     * The operator's grant id (DealRequest.free_bet_id).
     *
     * @generated from field: string grant_id = 1;
     */
    grantId: string;
    /**
     * Each free bet's value in minor units: the first box's main stake.
     *
     * @generated from field: int64 value = 2;
     */
    value: bigint;
    /**
     * Free bets left.
     *
     * @generated from field: int32 left = 3;
     */
    left: number;
    /**
     * When they lapse.
     *
     * @generated from field: google.protobuf.Timestamp expires_at = 4;
     */
    expiresAt?: Timestamp | undefined;
    /**
     * The variants they are for (empty: every variant).
     *
     * @generated from field: repeated string variant_ids = 5;
     */
    variantIds: string[];
};
/**
 * Describes the message rgs.blackjack.v1.FreeBet.
 * Use `create(FreeBetSchema)` to create a new message.
 */
export declare const FreeBetSchema: GenMessage<FreeBet>;
/**
 * Action is a player decision.
 *
 * @generated from enum rgs.blackjack.v1.Action
 */
export declare enum Action {
    /**
     * Never valid; the zero value of the enum.
     *
     * @generated from enum value: ACTION_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Take insurance on a box (dealer shows an ace).
     *
     * @generated from enum value: ACTION_INSURE = 1;
     */
    INSURE = 1,
    /**
     * Decline insurance on a box.
     *
     * @generated from enum value: ACTION_DECLINE_INSURANCE = 2;
     */
    DECLINE_INSURANCE = 2,
    /**
     * Take one more card.
     *
     * @generated from enum value: ACTION_HIT = 3;
     */
    HIT = 3,
    /**
     * Take no more cards.
     *
     * @generated from enum value: ACTION_STAND = 4;
     */
    STAND = 4,
    /**
     * Double the stake, take exactly one card and stand.
     *
     * @generated from enum value: ACTION_DOUBLE = 5;
     */
    DOUBLE = 5,
    /**
     * Split a pair into two hands.
     *
     * @generated from enum value: ACTION_SPLIT = 6;
     */
    SPLIT = 6,
    /**
     * Give up the hand for half the stake back.
     *
     * @generated from enum value: ACTION_SURRENDER = 7;
     */
    SURRENDER = 7,
    /**
     * Power Split a non-pair hand (Power Blackjack).
     *
     * @generated from enum value: ACTION_POWER_SPLIT = 8;
     */
    POWER_SPLIT = 8,
    /**
     * Power Double: double, see the card, then keep or replace it (Power Blackjack).
     *
     * @generated from enum value: ACTION_POWER_DOUBLE = 9;
     */
    POWER_DOUBLE = 9,
    /**
     * Keep the Power Double card.
     *
     * @generated from enum value: ACTION_POWER_KEEP = 10;
     */
    POWER_KEEP = 10,
    /**
     * Replace the Power Double card.
     *
     * @generated from enum value: ACTION_POWER_REPLACE = 11;
     */
    POWER_REPLACE = 11,
    /**
     * Take the Cash Out offer instead of playing on.
     *
     * @generated from enum value: ACTION_CASH_OUT = 12;
     */
    CASH_OUT = 12
}
/**
 * Describes the enum rgs.blackjack.v1.Action.
 */
export declare const ActionSchema: GenEnum<Action>;
/**
 * RoundStatus is where a round is.
 *
 * @generated from enum rgs.blackjack.v1.RoundStatus
 */
export declare enum RoundStatus {
    /**
     * Never sent; the zero value of the enum.
     *
     * @generated from enum value: ROUND_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Waiting for insurance decisions.
     *
     * @generated from enum value: ROUND_STATUS_INSURANCE = 1;
     */
    INSURANCE = 1,
    /**
     * Waiting for a playing decision.
     *
     * @generated from enum value: ROUND_STATUS_PLAYER_TURN = 2;
     */
    PLAYER_TURN = 2,
    /**
     * Every bet is settled.
     *
     * @generated from enum value: ROUND_STATUS_SETTLED = 3;
     */
    SETTLED = 3,
    /**
     * The round was voided; every stake was returned.
     *
     * @generated from enum value: ROUND_STATUS_VOIDED = 4;
     */
    VOIDED = 4
}
/**
 * Describes the enum rgs.blackjack.v1.RoundStatus.
 */
export declare const RoundStatusSchema: GenEnum<RoundStatus>;
/**
 * HandStatus is a hand's state as a client draws it.
 *
 * @generated from enum rgs.blackjack.v1.HandStatus
 */
export declare enum HandStatus {
    /**
     * Never sent; the zero value of the enum.
     *
     * @generated from enum value: HAND_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A split hand not yet in play.
     *
     * @generated from enum value: HAND_STATUS_WAITING = 1;
     */
    WAITING = 1,
    /**
     * In play.
     *
     * @generated from enum value: HAND_STATUS_ACTIVE = 2;
     */
    ACTIVE = 2,
    /**
     * Power Double card shown: keep or replace.
     *
     * @generated from enum value: HAND_STATUS_POWER_CHOICE = 3;
     */
    POWER_CHOICE = 3,
    /**
     * Stood.
     *
     * @generated from enum value: HAND_STATUS_STOOD = 4;
     */
    STOOD = 4,
    /**
     * Doubled.
     *
     * @generated from enum value: HAND_STATUS_DOUBLED = 5;
     */
    DOUBLED = 5,
    /**
     * Busted.
     *
     * @generated from enum value: HAND_STATUS_BUSTED = 6;
     */
    BUSTED = 6,
    /**
     * A natural blackjack.
     *
     * @generated from enum value: HAND_STATUS_BLACKJACK = 7;
     */
    BLACKJACK = 7,
    /**
     * A card-count Charlie.
     *
     * @generated from enum value: HAND_STATUS_CHARLIE = 8;
     */
    CHARLIE = 8,
    /**
     * Surrendered.
     *
     * @generated from enum value: HAND_STATUS_SURRENDERED = 9;
     */
    SURRENDERED = 9,
    /**
     * Cashed out.
     *
     * @generated from enum value: HAND_STATUS_CASHED_OUT = 10;
     */
    CASHED_OUT = 10,
    /**
     * Settled.
     *
     * @generated from enum value: HAND_STATUS_SETTLED = 11;
     */
    SETTLED = 11
}
/**
 * Describes the enum rgs.blackjack.v1.HandStatus.
 */
export declare const HandStatusSchema: GenEnum<HandStatus>;
/**
 * Outcome is how a settled hand ended.
 *
 * @generated from enum rgs.blackjack.v1.Outcome
 */
export declare enum Outcome {
    /**
     * Not settled yet.
     *
     * @generated from enum value: OUTCOME_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Won with a blackjack.
     *
     * @generated from enum value: OUTCOME_BLACKJACK = 1;
     */
    BLACKJACK = 1,
    /**
     * Won.
     *
     * @generated from enum value: OUTCOME_WIN = 2;
     */
    WIN = 2,
    /**
     * Pushed: stake returned.
     *
     * @generated from enum value: OUTCOME_PUSH = 3;
     */
    PUSH = 3,
    /**
     * Lost to the dealer.
     *
     * @generated from enum value: OUTCOME_LOSE = 4;
     */
    LOSE = 4,
    /**
     * Busted.
     *
     * @generated from enum value: OUTCOME_BUST = 5;
     */
    BUST = 5,
    /**
     * Surrendered: half the stake returned.
     *
     * @generated from enum value: OUTCOME_SURRENDER = 6;
     */
    SURRENDER = 6,
    /**
     * Cashed out for the offer.
     *
     * @generated from enum value: OUTCOME_CASHED_OUT = 7;
     */
    CASHED_OUT = 7,
    /**
     * Won by a card-count Charlie.
     *
     * @generated from enum value: OUTCOME_CHARLIE = 8;
     */
    CHARLIE = 8,
    /**
     * Voided: stake returned.
     *
     * @generated from enum value: OUTCOME_VOID = 9;
     */
    VOID = 9
}
/**
 * Describes the enum rgs.blackjack.v1.Outcome.
 */
export declare const OutcomeSchema: GenEnum<Outcome>;
/**
 * SideBetKind names a side bet.
 *
 * @generated from enum rgs.blackjack.v1.SideBetKind
 */
export declare enum SideBetKind {
    /**
     * Never valid; the zero value of the enum.
     *
     * @generated from enum value: SIDE_BET_KIND_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * 20+ Bonus.
     *
     * @generated from enum value: SIDE_BET_KIND_TWENTY_PLUS = 1;
     */
    TWENTY_PLUS = 1,
    /**
     * Perfect Pairs.
     *
     * @generated from enum value: SIDE_BET_KIND_PERFECT_PAIRS = 2;
     */
    PERFECT_PAIRS = 2,
    /**
     * 21+3.
     *
     * @generated from enum value: SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE = 3;
     */
    TWENTY_ONE_PLUS_THREE = 3
}
/**
 * Describes the enum rgs.blackjack.v1.SideBetKind.
 */
export declare const SideBetKindSchema: GenEnum<SideBetKind>;
/**
 * InsuranceOffer is the player's setting for when insurance is offered.
 *
 * @generated from enum rgs.blackjack.v1.InsuranceOffer
 */
export declare enum InsuranceOffer {
    /**
     * Treated as ALWAYS.
     *
     * @generated from enum value: INSURANCE_OFFER_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Offer insurance whenever the dealer shows an ace.
     *
     * @generated from enum value: INSURANCE_OFFER_ALWAYS = 1;
     */
    ALWAYS = 1,
    /**
     * Offer insurance only when the box holds a blackjack (even money).
     *
     * @generated from enum value: INSURANCE_OFFER_ONLY_ON_PLAYER_BLACKJACK = 2;
     */
    ONLY_ON_PLAYER_BLACKJACK = 2,
    /**
     * Never offer insurance.
     *
     * @generated from enum value: INSURANCE_OFFER_NEVER = 3;
     */
    NEVER = 3
}
/**
 * Describes the enum rgs.blackjack.v1.InsuranceOffer.
 */
export declare const InsuranceOfferSchema: GenEnum<InsuranceOffer>;
/**
 * ResultClass is how a settled round ended against its stake.
 *
 * @generated from enum rgs.blackjack.v1.ResultClass
 */
export declare enum ResultClass {
    /**
     * Not settled.
     *
     * @generated from enum value: RESULT_CLASS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Paid more than the stake: the only result to celebrate.
     *
     * @generated from enum value: RESULT_CLASS_WIN = 1;
     */
    WIN = 1,
    /**
     * Paid back exactly the stake (a push): not a win.
     *
     * @generated from enum value: RESULT_CLASS_RETURN_EQUAL = 2;
     */
    RETURN_EQUAL = 2,
    /**
     * Paid back less than the stake (a surrender, a low Cash Out): not a win.
     *
     * @generated from enum value: RESULT_CLASS_RETURN_BELOW = 3;
     */
    RETURN_BELOW = 3,
    /**
     * Paid nothing.
     *
     * @generated from enum value: RESULT_CLASS_LOSS = 4;
     */
    LOSS = 4
}
/**
 * Describes the enum rgs.blackjack.v1.ResultClass.
 */
export declare const ResultClassSchema: GenEnum<ResultClass>;
/**
 * BlackjackService deals and plays rounds.
 *
 * @generated from service rgs.blackjack.v1.BlackjackService
 */
export declare const BlackjackService: GenService<{
    /**
     * ListVariants returns the variants the session's brand offers, with the rules, limits and
     * paytables a client needs to draw the table.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.ListVariants
     */
    listVariants: {
        methodKind: "unary";
        input: typeof ListVariantsRequestSchema;
        output: typeof ListVariantsResponseSchema;
    };
    /**
     * Deal takes the stakes from the wallet and deals a new round.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.Deal
     */
    deal: {
        methodKind: "unary";
        input: typeof DealRequestSchema;
        output: typeof DealResponseSchema;
    };
    /**
     * Act applies one player decision to one hand (or box, for insurance).
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.Act
     */
    act: {
        methodKind: "unary";
        input: typeof ActRequestSchema;
        output: typeof ActResponseSchema;
    };
    /**
     * Settle finishes a round on the player's behalf (stands every open hand, declines insurance)
     * and retries an unfinished payment. Idempotent.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.Settle
     */
    settle: {
        methodKind: "unary";
        input: typeof SettleRequestSchema;
        output: typeof SettleResponseSchema;
    };
    /**
     * GetRound returns a round's public view; without a round id, the session's unfinished round.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.GetRound
     */
    getRound: {
        methodKind: "unary";
        input: typeof GetRoundRequestSchema;
        output: typeof GetRoundResponseSchema;
    };
    /**
     * GetBalance returns the player's balance as the operator's wallet reports it now (a client
     * can show it before the first round). Changes nothing.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.GetBalance
     */
    getBalance: {
        methodKind: "unary";
        input: typeof GetBalanceRequestSchema;
        output: typeof GetBalanceResponseSchema;
    };
    /**
     * AcknowledgeRealityCheck records that the player was shown the session's reality check (its
     * time and position, returned here) and chose to go on: the next check falls due one interval
     * from now. A Deal or bet refused REALITY_CHECK_DUE is accepted after it.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.AcknowledgeRealityCheck
     */
    acknowledgeRealityCheck: {
        methodKind: "unary";
        input: typeof AcknowledgeRealityCheckRequestSchema;
        output: typeof AcknowledgeRealityCheckResponseSchema;
    };
    /**
     * RedeemLaunch exchanges a launch URL's one-time code (CreateLaunch, docs/operators.md) for
     * its session, once; it needs no authorization (the code is the credential). A second use is
     * PERMISSION_DENIED LAUNCH_CODE_USED, an expired code LAUNCH_CODE_EXPIRED, an altered or
     * unknown one LAUNCH_CODE_INVALID: the page tells the player to go back to the casino and
     * open the game again.
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.RedeemLaunch
     */
    redeemLaunch: {
        methodKind: "unary";
        input: typeof RedeemLaunchRequestSchema;
        output: typeof RedeemLaunchResponseSchema;
    };
    /**
     * TopUpDemoBalance raises a demo session's virtual balance back to its brand's starting
     * balance (a real session: FAILED_PRECONDITION NOT_A_DEMO_SESSION).
     *
     * @generated from rpc rgs.blackjack.v1.BlackjackService.TopUpDemoBalance
     */
    topUpDemoBalance: {
        methodKind: "unary";
        input: typeof TopUpDemoBalanceRequestSchema;
        output: typeof TopUpDemoBalanceResponseSchema;
    };
}>;
