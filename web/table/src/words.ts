// The words a player reads for the round's decisions, hands and side bets, solo and at a
// shared table alike.

import { Action, HandStatus, Outcome, SideBetKind } from "@rgs/client";

export const ACTION_LABELS: Record<number, string> = {
  [Action.INSURE]: "Take insurance",
  [Action.DECLINE_INSURANCE]: "No insurance",
  [Action.HIT]: "Hit",
  [Action.STAND]: "Stand",
  [Action.DOUBLE]: "Double",
  [Action.SPLIT]: "Split",
  [Action.SURRENDER]: "Surrender",
  [Action.POWER_SPLIT]: "Power Split",
  [Action.POWER_DOUBLE]: "Power Double",
  [Action.POWER_KEEP]: "Keep the card",
  [Action.POWER_REPLACE]: "Replace the card",
  [Action.CASH_OUT]: "Cash Out",
};

export const SIDE_BET_NAMES: Record<number, string> = {
  [SideBetKind.TWENTY_PLUS]: "20+",
  [SideBetKind.PERFECT_PAIRS]: "Perfect Pairs",
  [SideBetKind.TWENTY_ONE_PLUS_THREE]: "21+3",
};

export const OUTCOME_WORDS: Record<number, string> = {
  [Outcome.BLACKJACK]: "Blackjack",
  [Outcome.WIN]: "Win",
  [Outcome.PUSH]: "Push",
  [Outcome.LOSE]: "Lose",
  [Outcome.BUST]: "Bust",
  [Outcome.SURRENDER]: "Surrendered",
  [Outcome.CASHED_OUT]: "Cashed out",
  [Outcome.CHARLIE]: "Charlie",
  [Outcome.VOID]: "Void",
};

export const HAND_WORDS: Record<number, string> = {
  [HandStatus.WAITING]: "waiting",
  [HandStatus.ACTIVE]: "your turn",
  [HandStatus.POWER_CHOICE]: "keep or replace the card",
  [HandStatus.STOOD]: "stood",
  [HandStatus.DOUBLED]: "doubled",
  [HandStatus.BUSTED]: "bust",
  [HandStatus.BLACKJACK]: "blackjack",
  [HandStatus.CHARLIE]: "charlie",
  [HandStatus.SURRENDERED]: "surrendered",
  [HandStatus.CASHED_OUT]: "cashed out",
  [HandStatus.SETTLED]: "settled",
};
