import { ApiKey, Club, ClubSecret } from "./club.js";
import { CashbackProgram, ConfigVersion } from "./config.js";
import { CashbackCredit } from "./cashback.js";
import { Participant } from "./participant.js";
import { Balance, CurrencyLot, LedgerEntry } from "./wallet.js";
import { Event, RuleDedupeKey, RuleRunDay } from "./event.js";
import { Badge, LeaderboardEntry, MissionProgress } from "./achievements.js";
import { Delivery, ParticipantReward, Redemption } from "./reward.js";
import { Affiliate, AffiliateAttribution, Referral } from "./referral.js";
import { CheckinClaim, Notification, WheelSeed, WheelSpin } from "./engagement.js";
import { Game } from "./game.js";
import { StaffWarning } from "./staff-warning.js";
import { OutboxMessage, WebhookAttempt, WebhookEndpoint, WebhookSending } from "./webhook.js";
import { Job } from "./job.js";
import { TierReview } from "./tier-review.js";
import { IdempotencyKey } from "./idempotency.js";
import { TournamentSettlement, TournamentStanding } from "./tournament.js";
import { TestClock } from "./test-clock.js";
import { Backtest } from "./backtest.js";
import { CodeRedemption, PromotionCode } from "./promotion-code.js";
import { AuditEntry, StaffMember, StaffNotificationRead, StaffSession } from "./staff.js";

export * from "./club.js";
export * from "./config.js";
export * from "./cashback.js";
export * from "./participant.js";
export * from "./wallet.js";
export * from "./event.js";
export * from "./achievements.js";
export * from "./reward.js";
export * from "./referral.js";
export * from "./engagement.js";
export * from "./game.js";
export * from "./staff-warning.js";
export * from "./webhook.js";
export * from "./job.js";
export * from "./tier-review.js";
export * from "./idempotency.js";
export * from "./tournament.js";
export * from "./test-clock.js";
export * from "./backtest.js";
export * from "./promotion-code.js";
export * from "./staff.js";

/** Every entity, as the ORM and the migration generator load them. */
export const allEntities = [
  Club,
  ApiKey,
  ClubSecret,
  ConfigVersion,
  CashbackProgram,
  Participant,
  Balance,
  LedgerEntry,
  CurrencyLot,
  Event,
  RuleDedupeKey,
  RuleRunDay,
  MissionProgress,
  Badge,
  LeaderboardEntry,
  ParticipantReward,
  Delivery,
  Redemption,
  Referral,
  Affiliate,
  AffiliateAttribution,
  Notification,
  CheckinClaim,
  WheelSpin,
  WheelSeed,
  Game,
  StaffWarning,
  WebhookEndpoint,
  OutboxMessage,
  WebhookSending,
  WebhookAttempt,
  Job,
  CashbackCredit,
  TierReview,
  TestClock,
  Backtest,
  TournamentStanding,
  TournamentSettlement,
  IdempotencyKey,
  PromotionCode,
  CodeRedemption,
  StaffMember,
  StaffSession,
  AuditEntry,
  StaffNotificationRead,
];
