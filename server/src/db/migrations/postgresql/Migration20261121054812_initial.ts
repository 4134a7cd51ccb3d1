import { Migration } from "@mikro-orm/migrations";

export class Migration20261121054812_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "affiliates" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "code" varchar(16) not null, "name" varchar(80) not null, "status" varchar(32) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "affiliates_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "affiliates" add constraint "affiliates_club_id_env_code_unique" unique ("club_id", "env", "code");`);

    this.addSql(
      `create table "affiliate_attributions" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "affiliate_id" varchar(40) not null, "participant_id" varchar(40) not null, "signup_at" timestamptz null, "created_at" timestamptz not null, constraint "affiliate_attributions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "affiliate_attributions_affiliate_id_index" on "affiliate_attributions" ("affiliate_id");`);
    this.addSql(
      `alter table "affiliate_attributions" add constraint "affiliate_attributions_club_id_env_participant_id_unique" unique ("club_id", "env", "participant_id");`,
    );

    this.addSql(
      `create table "api_keys" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "prefix" varchar(12) not null, "hash" varchar(64) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_prefix_index" on "api_keys" ("prefix");`);

    this.addSql(
      `create table "badges" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "badge_code" varchar(64) not null, "rule_id" varchar(64) null, "granted_at" timestamptz not null, constraint "badges_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "badges" add constraint "badges_participant_id_badge_code_unique" unique ("participant_id", "badge_code");`);

    this.addSql(
      `create table "balances" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "currency" varchar(24) not null, "amount" bigint not null, "updated_at" timestamptz not null, constraint "balances_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "balances" add constraint "balances_participant_id_currency_unique" unique ("participant_id", "currency");`);

    this.addSql(
      `create table "cashback_programs" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "program" jsonb not null, "updated_at" timestamptz not null, constraint "cashback_programs_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "cashback_programs" add constraint "cashback_programs_club_id_env_unique" unique ("club_id", "env");`);

    this.addSql(
      `create table "checkin_claims" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "day_key" varchar(10) not null, "period_key" varchar(16) not null, "day_index" int not null, "reward" varchar(120) null, "claimed_at" timestamptz not null, constraint "checkin_claims_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "checkin_claims_participant_id_period_key_index" on "checkin_claims" ("participant_id", "period_key");`);
    this.addSql(`alter table "checkin_claims" add constraint "checkin_claims_participant_id_day_key_unique" unique ("participant_id", "day_key");`);

    this.addSql(
      `create table "clubs" ("id" varchar(40) not null, "name" varchar(120) not null, "created_at" timestamptz not null, constraint "clubs_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "club_secrets" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "token_signing_secret" varchar(64) not null, "created_at" timestamptz not null, constraint "club_secrets_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "club_secrets" add constraint "club_secrets_club_id_env_unique" unique ("club_id", "env");`);

    this.addSql(
      `create table "config_versions" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "version" int not null, "status" varchar(32) not null, "config" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "published_at" timestamptz null, constraint "config_versions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "config_versions_club_id_env_status_index" on "config_versions" ("club_id", "env", "status");`);
    this.addSql(`alter table "config_versions" add constraint "config_versions_club_id_env_version_unique" unique ("club_id", "env", "version");`);

    this.addSql(
      `create table "currency_lots" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "currency" varchar(24) not null, "granted" bigint not null, "remaining" bigint not null, "expires_at" timestamptz null, "created_at" timestamptz not null, constraint "currency_lots_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "currency_lots_participant_id_currency_expires_at_index" on "currency_lots" ("participant_id", "currency", "expires_at");`);
    this.addSql(`create index "currency_lots_expires_at_index" on "currency_lots" ("expires_at");`);

    this.addSql(
      `create table "deliveries" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "participant_reward_id" varchar(40) not null, "reward_code" varchar(48) not null, "status" varchar(32) not null, "external_ref" varchar(200) null, "fail_reason" varchar(500) null, "details" jsonb null, "created_at" timestamptz not null, "confirmed_at" timestamptz null, "warned_at" timestamptz null, constraint "deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "deliveries_club_id_env_status_created_at_index" on "deliveries" ("club_id", "env", "status", "created_at");`);
    this.addSql(`create index "deliveries_status_created_at_index" on "deliveries" ("status", "created_at");`);
    this.addSql(`create index "deliveries_participant_id_index" on "deliveries" ("participant_id");`);

    this.addSql(
      `create table "events" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "external_event_id" varchar(128) null, "idempotency_key" varchar(128) null, "duplicate_of" varchar(40) null, "type" varchar(64) not null, "amount" varchar(40) null, "amount_minor" bigint null, "currency" varchar(3) not null, "occurred_at" timestamptz not null, "meta" jsonb not null, "status" varchar(32) not null, "effects" jsonb not null, "effects_count" int not null, "error" text null, "received_at" timestamptz not null, "processed_at" timestamptz null, constraint "events_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "events_club_id_env_received_at_index" on "events" ("club_id", "env", "received_at");`);
    this.addSql(`create index "events_participant_id_received_at_index" on "events" ("participant_id", "received_at");`);
    this.addSql(`create index "events_status_received_at_index" on "events" ("status", "received_at");`);
    this.addSql(`alter table "events" add constraint "events_club_id_env_idempotency_key_unique" unique ("club_id", "env", "idempotency_key");`);

    this.addSql(
      `create table "games" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "game_id" varchar(120) not null, "name" varchar(120) not null, "provider" varchar(60) null, "category" varchar(40) null, "image_url" text null, "active" boolean not null, "updated_at" timestamptz not null, constraint "games_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "games" add constraint "games_club_id_env_game_id_unique" unique ("club_id", "env", "game_id");`);

    this.addSql(
      `create table "jobs" ("id" varchar(40) not null, "club_id" varchar(40) null, "env" varchar(32) null, "queue" varchar(64) not null, "payload" jsonb not null, "status" varchar(32) not null, "attempts" int not null, "run_at" timestamptz not null, "locked_until" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "jobs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "jobs_queue_status_run_at_index" on "jobs" ("queue", "status", "run_at");`);
    this.addSql(`create index "jobs_status_locked_until_index" on "jobs" ("status", "locked_until");`);

    this.addSql(
      `create table "leaderboard_entries" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "campaign_id" varchar(64) not null, "points" bigint not null, "updated_at" timestamptz not null, constraint "leaderboard_entries_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "leaderboard_entries_club_id_env_campaign_id_points_index" on "leaderboard_entries" ("club_id", "env", "campaign_id", "points");`,
    );
    this.addSql(
      `alter table "leaderboard_entries" add constraint "leaderboard_entries_participant_id_campaign_id_unique" unique ("participant_id", "campaign_id");`,
    );

    this.addSql(
      `create table "ledger_entries" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "unit" varchar(24) not null, "delta" bigint not null, "balance_after" bigint not null, "reason" varchar(64) not null, "rule_id" varchar(120) null, "event_id" varchar(40) null, "created_at" timestamptz not null, constraint "ledger_entries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "ledger_entries_participant_id_created_at_index" on "ledger_entries" ("participant_id", "created_at");`);

    this.addSql(
      `create table "mission_progress" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "mission_id" varchar(48) not null, "period_key" varchar(16) not null, "progress" double precision not null, "completed_at" timestamptz null, "claimed_at" timestamptz null, "updated_at" timestamptz not null, constraint "mission_progress_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "mission_progress" add constraint "mission_progress_participant_id_mission_id_period_key_unique" unique ("participant_id", "mission_id", "period_key");`,
    );

    this.addSql(
      `create table "notifications" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "kind" varchar(64) not null, "title" varchar(200) not null, "body" text null, "view" varchar(64) null, "created_at" timestamptz not null, "read_at" timestamptz null, constraint "notifications_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "notifications_participant_id_created_at_index" on "notifications" ("participant_id", "created_at");`);

    this.addSql(
      `create table "outbox_messages" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "kind" varchar(32) not null, "payload" jsonb not null, "created_at" timestamptz not null, "relayed_at" timestamptz null, constraint "outbox_messages_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "outbox_messages_relayed_at_created_at_index" on "outbox_messages" ("relayed_at", "created_at");`);

    this.addSql(
      `create table "participants" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "external_id" varchar(128) not null, "display_name" varchar(80) null, "avatar_url" text null, "email" varchar(320) null, "phone" varchar(32) null, "tags" jsonb not null, "flags" jsonb not null, "xp" bigint not null, "level" int not null, "tier_code" varchar(32) null, "event_counts" jsonb not null, "referral_code" varchar(16) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "participants_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "participants" add constraint "participants_club_id_env_external_id_unique" unique ("club_id", "env", "external_id");`);
    this.addSql(`alter table "participants" add constraint "participants_club_id_env_referral_code_unique" unique ("club_id", "env", "referral_code");`);

    this.addSql(
      `create table "participant_rewards" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "reward_code" varchar(48) not null, "type" varchar(32) not null, "status" varchar(32) not null, "source" varchar(200) not null, "delivery_id" varchar(40) null, "granted_at" timestamptz not null, "expires_at" timestamptz null, constraint "participant_rewards_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "participant_rewards_participant_id_granted_at_index" on "participant_rewards" ("participant_id", "granted_at");`);

    this.addSql(
      `create table "redemptions" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "reward_code" varchar(48) not null, "idempotency_key" varchar(120) null, "cost" jsonb not null, "result" jsonb not null, "created_at" timestamptz not null, constraint "redemptions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "redemptions_participant_id_created_at_index" on "redemptions" ("participant_id", "created_at");`);
    this.addSql(`alter table "redemptions" add constraint "redemptions_club_id_env_idempotency_key_unique" unique ("club_id", "env", "idempotency_key");`);

    this.addSql(
      `create table "referrals" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "referrer_id" varchar(40) not null, "referred_id" varchar(40) not null, "code" varchar(16) not null, "status" varchar(32) not null, "created_at" timestamptz not null, "qualified_at" timestamptz null, constraint "referrals_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "referrals_referrer_id_created_at_index" on "referrals" ("referrer_id", "created_at");`);
    this.addSql(`alter table "referrals" add constraint "referrals_club_id_env_referred_id_unique" unique ("club_id", "env", "referred_id");`);

    this.addSql(
      `create table "rule_runs" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "rule_id" varchar(64) not null, "dedupe_key" varchar(200) null, "event_id" varchar(40) null, "day_key" varchar(10) not null, "amounts" jsonb not null, "run_at" timestamptz not null, constraint "rule_runs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "rule_runs_participant_id_rule_id_day_key_index" on "rule_runs" ("participant_id", "rule_id", "day_key");`);
    this.addSql(
      `alter table "rule_runs" add constraint "rule_runs_participant_id_rule_id_dedupe_key_unique" unique ("participant_id", "rule_id", "dedupe_key");`,
    );

    this.addSql(
      `create table "staff_warnings" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "kind" varchar(32) not null, "subject_id" varchar(40) not null, "message" text not null, "created_at" timestamptz not null, constraint "staff_warnings_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "staff_warnings_club_id_env_created_at_index" on "staff_warnings" ("club_id", "env", "created_at");`);
    this.addSql(`alter table "staff_warnings" add constraint "staff_warnings_kind_subject_id_unique" unique ("kind", "subject_id");`);

    this.addSql(
      `create table "webhook_endpoints" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "url" text not null, "events" jsonb not null, "description" varchar(200) null, "enabled" boolean not null, "secret" varchar(64) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "webhook_endpoints_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_endpoints_club_id_env_created_at_index" on "webhook_endpoints" ("club_id", "env", "created_at");`);

    this.addSql(
      `create table "webhook_sendings" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "endpoint_id" varchar(40) not null, "event_id" varchar(40) not null, "event_type" varchar(64) not null, "body" text not null, "status" varchar(32) not null, "attempts" int not null, "last_error" text null, "last_status_code" int null, "next_attempt_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhook_sendings_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_sendings_status_next_attempt_at_index" on "webhook_sendings" ("status", "next_attempt_at");`);
    this.addSql(`create index "webhook_sendings_endpoint_id_created_at_index" on "webhook_sendings" ("endpoint_id", "created_at");`);
    this.addSql(`alter table "webhook_sendings" add constraint "webhook_sendings_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");`);

    this.addSql(
      `create table "wheel_spins" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "day_key" varchar(10) not null, "slice_id" varchar(32) not null, "slice_index" int not null, "reward_code" varchar(120) null, "probability_version" int not null, "idempotency_key" varchar(120) null, "result" jsonb not null, "spun_at" timestamptz not null, constraint "wheel_spins_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "wheel_spins_participant_id_day_key_index" on "wheel_spins" ("participant_id", "day_key");`);
    this.addSql(`alter table "wheel_spins" add constraint "wheel_spins_club_id_env_idempotency_key_unique" unique ("club_id", "env", "idempotency_key");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "affiliates" cascade;`);

    this.addSql(`drop table if exists "affiliate_attributions" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop table if exists "badges" cascade;`);

    this.addSql(`drop table if exists "balances" cascade;`);

    this.addSql(`drop table if exists "cashback_programs" cascade;`);

    this.addSql(`drop table if exists "checkin_claims" cascade;`);

    this.addSql(`drop table if exists "clubs" cascade;`);

    this.addSql(`drop table if exists "club_secrets" cascade;`);

    this.addSql(`drop table if exists "config_versions" cascade;`);

    this.addSql(`drop table if exists "currency_lots" cascade;`);

    this.addSql(`drop table if exists "deliveries" cascade;`);

    this.addSql(`drop table if exists "events" cascade;`);

    this.addSql(`drop table if exists "games" cascade;`);

    this.addSql(`drop table if exists "jobs" cascade;`);

    this.addSql(`drop table if exists "leaderboard_entries" cascade;`);

    this.addSql(`drop table if exists "ledger_entries" cascade;`);

    this.addSql(`drop table if exists "mission_progress" cascade;`);

    this.addSql(`drop table if exists "notifications" cascade;`);

    this.addSql(`drop table if exists "outbox_messages" cascade;`);

    this.addSql(`drop table if exists "participants" cascade;`);

    this.addSql(`drop table if exists "participant_rewards" cascade;`);

    this.addSql(`drop table if exists "redemptions" cascade;`);

    this.addSql(`drop table if exists "referrals" cascade;`);

    this.addSql(`drop table if exists "rule_runs" cascade;`);

    this.addSql(`drop table if exists "staff_warnings" cascade;`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);

    this.addSql(`drop table if exists "webhook_sendings" cascade;`);

    this.addSql(`drop table if exists "wheel_spins" cascade;`);
  }
}
