import { Migration } from "@mikro-orm/migrations";

export class Migration20261121054812_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`affiliates\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`code\` text not null, \`name\` text not null, \`status\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`affiliates_club_id_env_code_unique\` on \`affiliates\` (\`club_id\`, \`env\`, \`code\`);`);

    this.addSql(
      `create table \`affiliate_attributions\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`affiliate_id\` text not null, \`participant_id\` text not null, \`signup_at\` datetime null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`affiliate_attributions_affiliate_id_index\` on \`affiliate_attributions\` (\`affiliate_id\`);`);
    this.addSql(
      `create unique index \`affiliate_attributions_club_id_env_participant_id_unique\` on \`affiliate_attributions\` (\`club_id\`, \`env\`, \`participant_id\`);`,
    );

    this.addSql(
      `create table \`api_keys\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`prefix\` text not null, \`hash\` text not null, \`created_at\` datetime not null, \`revoked_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`api_keys_prefix_index\` on \`api_keys\` (\`prefix\`);`);

    this.addSql(
      `create table \`badges\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`badge_code\` text not null, \`rule_id\` text null, \`granted_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`badges_participant_id_badge_code_unique\` on \`badges\` (\`participant_id\`, \`badge_code\`);`);

    this.addSql(
      `create table \`balances\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`currency\` text not null, \`amount\` bigint not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`balances_participant_id_currency_unique\` on \`balances\` (\`participant_id\`, \`currency\`);`);

    this.addSql(
      `create table \`cashback_programs\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`program\` json not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`cashback_programs_club_id_env_unique\` on \`cashback_programs\` (\`club_id\`, \`env\`);`);

    this.addSql(
      `create table \`checkin_claims\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`day_key\` text not null, \`period_key\` text not null, \`day_index\` integer not null, \`reward\` text null, \`claimed_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`checkin_claims_participant_id_period_key_index\` on \`checkin_claims\` (\`participant_id\`, \`period_key\`);`);
    this.addSql(`create unique index \`checkin_claims_participant_id_day_key_unique\` on \`checkin_claims\` (\`participant_id\`, \`day_key\`);`);

    this.addSql(`create table \`clubs\` (\`id\` text not null, \`name\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`);

    this.addSql(
      `create table \`club_secrets\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`token_signing_secret\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`club_secrets_club_id_env_unique\` on \`club_secrets\` (\`club_id\`, \`env\`);`);

    this.addSql(
      `create table \`config_versions\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`version\` integer not null, \`status\` text not null, \`config\` json not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`published_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`config_versions_club_id_env_status_index\` on \`config_versions\` (\`club_id\`, \`env\`, \`status\`);`);
    this.addSql(`create unique index \`config_versions_club_id_env_version_unique\` on \`config_versions\` (\`club_id\`, \`env\`, \`version\`);`);

    this.addSql(
      `create table \`currency_lots\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`currency\` text not null, \`granted\` bigint not null, \`remaining\` bigint not null, \`expires_at\` datetime null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(
      `create index \`currency_lots_participant_id_currency_expires_at_index\` on \`currency_lots\` (\`participant_id\`, \`currency\`, \`expires_at\`);`,
    );
    this.addSql(`create index \`currency_lots_expires_at_index\` on \`currency_lots\` (\`expires_at\`);`);

    this.addSql(
      `create table \`deliveries\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`participant_reward_id\` text not null, \`reward_code\` text not null, \`status\` text not null, \`external_ref\` text null, \`fail_reason\` text null, \`details\` json null, \`created_at\` datetime not null, \`confirmed_at\` datetime null, \`warned_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`deliveries_club_id_env_status_created_at_index\` on \`deliveries\` (\`club_id\`, \`env\`, \`status\`, \`created_at\`);`);
    this.addSql(`create index \`deliveries_status_created_at_index\` on \`deliveries\` (\`status\`, \`created_at\`);`);
    this.addSql(`create index \`deliveries_participant_id_index\` on \`deliveries\` (\`participant_id\`);`);

    this.addSql(
      `create table \`events\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`external_event_id\` text null, \`idempotency_key\` text null, \`duplicate_of\` text null, \`type\` text not null, \`amount\` text null, \`amount_minor\` bigint null, \`currency\` text not null, \`occurred_at\` datetime not null, \`meta\` json not null, \`status\` text not null, \`effects\` json not null, \`effects_count\` integer not null, \`error\` text null, \`received_at\` datetime not null, \`processed_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`events_club_id_env_received_at_index\` on \`events\` (\`club_id\`, \`env\`, \`received_at\`);`);
    this.addSql(`create index \`events_participant_id_received_at_index\` on \`events\` (\`participant_id\`, \`received_at\`);`);
    this.addSql(`create index \`events_status_received_at_index\` on \`events\` (\`status\`, \`received_at\`);`);
    this.addSql(`create unique index \`events_club_id_env_idempotency_key_unique\` on \`events\` (\`club_id\`, \`env\`, \`idempotency_key\`);`);

    this.addSql(
      `create table \`games\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`game_id\` text not null, \`name\` text not null, \`provider\` text null, \`category\` text null, \`image_url\` text null, \`active\` integer not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`games_club_id_env_game_id_unique\` on \`games\` (\`club_id\`, \`env\`, \`game_id\`);`);

    this.addSql(
      `create table \`jobs\` (\`id\` text not null, \`club_id\` text null, \`env\` text null, \`queue\` text not null, \`payload\` json not null, \`status\` text not null, \`attempts\` integer not null, \`run_at\` datetime not null, \`locked_until\` datetime null, \`last_error\` text null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`jobs_queue_status_run_at_index\` on \`jobs\` (\`queue\`, \`status\`, \`run_at\`);`);
    this.addSql(`create index \`jobs_status_locked_until_index\` on \`jobs\` (\`status\`, \`locked_until\`);`);

    this.addSql(
      `create table \`leaderboard_entries\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`campaign_id\` text not null, \`points\` bigint not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(
      `create index \`leaderboard_entries_club_id_env_campaign_id_points_index\` on \`leaderboard_entries\` (\`club_id\`, \`env\`, \`campaign_id\`, \`points\`);`,
    );
    this.addSql(
      `create unique index \`leaderboard_entries_participant_id_campaign_id_unique\` on \`leaderboard_entries\` (\`participant_id\`, \`campaign_id\`);`,
    );

    this.addSql(
      `create table \`ledger_entries\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`unit\` text not null, \`delta\` bigint not null, \`balance_after\` bigint not null, \`reason\` text not null, \`rule_id\` text null, \`event_id\` text null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`ledger_entries_participant_id_created_at_index\` on \`ledger_entries\` (\`participant_id\`, \`created_at\`);`);

    this.addSql(
      `create table \`mission_progress\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`mission_id\` text not null, \`period_key\` text not null, \`progress\` double not null, \`completed_at\` datetime null, \`claimed_at\` datetime null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(
      `create unique index \`mission_progress_participant_id_mission_id_period_key_unique\` on \`mission_progress\` (\`participant_id\`, \`mission_id\`, \`period_key\`);`,
    );

    this.addSql(
      `create table \`notifications\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`kind\` text not null, \`title\` text not null, \`body\` text null, \`view\` text null, \`created_at\` datetime not null, \`read_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`notifications_participant_id_created_at_index\` on \`notifications\` (\`participant_id\`, \`created_at\`);`);

    this.addSql(
      `create table \`outbox_messages\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`kind\` text not null, \`payload\` json not null, \`created_at\` datetime not null, \`relayed_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`outbox_messages_relayed_at_created_at_index\` on \`outbox_messages\` (\`relayed_at\`, \`created_at\`);`);

    this.addSql(
      `create table \`participants\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`external_id\` text not null, \`display_name\` text null, \`avatar_url\` text null, \`email\` text null, \`phone\` text null, \`tags\` json not null, \`flags\` json not null, \`xp\` bigint not null, \`level\` integer not null, \`tier_code\` text null, \`event_counts\` json not null, \`referral_code\` text null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`participants_club_id_env_external_id_unique\` on \`participants\` (\`club_id\`, \`env\`, \`external_id\`);`);
    this.addSql(`create unique index \`participants_club_id_env_referral_code_unique\` on \`participants\` (\`club_id\`, \`env\`, \`referral_code\`);`);

    this.addSql(
      `create table \`participant_rewards\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`reward_code\` text not null, \`type\` text not null, \`status\` text not null, \`source\` text not null, \`delivery_id\` text null, \`granted_at\` datetime not null, \`expires_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`participant_rewards_participant_id_granted_at_index\` on \`participant_rewards\` (\`participant_id\`, \`granted_at\`);`);

    this.addSql(
      `create table \`redemptions\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`reward_code\` text not null, \`idempotency_key\` text null, \`cost\` json not null, \`result\` json not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`redemptions_participant_id_created_at_index\` on \`redemptions\` (\`participant_id\`, \`created_at\`);`);
    this.addSql(`create unique index \`redemptions_club_id_env_idempotency_key_unique\` on \`redemptions\` (\`club_id\`, \`env\`, \`idempotency_key\`);`);

    this.addSql(
      `create table \`referrals\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`referrer_id\` text not null, \`referred_id\` text not null, \`code\` text not null, \`status\` text not null, \`created_at\` datetime not null, \`qualified_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`referrals_referrer_id_created_at_index\` on \`referrals\` (\`referrer_id\`, \`created_at\`);`);
    this.addSql(`create unique index \`referrals_club_id_env_referred_id_unique\` on \`referrals\` (\`club_id\`, \`env\`, \`referred_id\`);`);

    this.addSql(
      `create table \`rule_runs\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`rule_id\` text not null, \`dedupe_key\` text null, \`event_id\` text null, \`day_key\` text not null, \`amounts\` json not null, \`run_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`rule_runs_participant_id_rule_id_day_key_index\` on \`rule_runs\` (\`participant_id\`, \`rule_id\`, \`day_key\`);`);
    this.addSql(
      `create unique index \`rule_runs_participant_id_rule_id_dedupe_key_unique\` on \`rule_runs\` (\`participant_id\`, \`rule_id\`, \`dedupe_key\`);`,
    );

    this.addSql(
      `create table \`staff_warnings\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`kind\` text not null, \`subject_id\` text not null, \`message\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`staff_warnings_club_id_env_created_at_index\` on \`staff_warnings\` (\`club_id\`, \`env\`, \`created_at\`);`);
    this.addSql(`create unique index \`staff_warnings_kind_subject_id_unique\` on \`staff_warnings\` (\`kind\`, \`subject_id\`);`);

    this.addSql(
      `create table \`webhook_endpoints\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`url\` text not null, \`events\` json not null, \`description\` text null, \`enabled\` integer not null, \`secret\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`deleted_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`webhook_endpoints_club_id_env_created_at_index\` on \`webhook_endpoints\` (\`club_id\`, \`env\`, \`created_at\`);`);

    this.addSql(
      `create table \`webhook_sendings\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`endpoint_id\` text not null, \`event_id\` text not null, \`event_type\` text not null, \`body\` text not null, \`status\` text not null, \`attempts\` integer not null, \`last_error\` text null, \`last_status_code\` integer null, \`next_attempt_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`webhook_sendings_status_next_attempt_at_index\` on \`webhook_sendings\` (\`status\`, \`next_attempt_at\`);`);
    this.addSql(`create index \`webhook_sendings_endpoint_id_created_at_index\` on \`webhook_sendings\` (\`endpoint_id\`, \`created_at\`);`);
    this.addSql(`create unique index \`webhook_sendings_endpoint_id_event_id_unique\` on \`webhook_sendings\` (\`endpoint_id\`, \`event_id\`);`);

    this.addSql(
      `create table \`wheel_spins\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`day_key\` text not null, \`slice_id\` text not null, \`slice_index\` integer not null, \`reward_code\` text null, \`probability_version\` integer not null, \`idempotency_key\` text null, \`result\` json not null, \`spun_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`wheel_spins_participant_id_day_key_index\` on \`wheel_spins\` (\`participant_id\`, \`day_key\`);`);
    this.addSql(`create unique index \`wheel_spins_club_id_env_idempotency_key_unique\` on \`wheel_spins\` (\`club_id\`, \`env\`, \`idempotency_key\`);`);
  }
}
