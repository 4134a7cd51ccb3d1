import { Migration } from "@mikro-orm/migrations";

export class Migration20261121064618_scheduled_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`cashback_credits\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`day_key\` text not null, \`loss\` bigint not null, \`pct\` double not null, \`amount\` bigint not null, \`participant_reward_id\` text not null, \`delivery_id\` text null, \`paid_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`cashback_credits_participant_id_paid_at_index\` on \`cashback_credits\` (\`participant_id\`, \`paid_at\`);`);
    this.addSql(`create unique index \`cashback_credits_participant_id_day_key_unique\` on \`cashback_credits\` (\`participant_id\`, \`day_key\`);`);

    this.addSql(
      `create table \`tier_reviews\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`month_key\` text not null, \`reviewed\` integer not null, \`started_at\` datetime not null, \`finished_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`tier_reviews_club_id_env_month_key_unique\` on \`tier_reviews\` (\`club_id\`, \`env\`, \`month_key\`);`);

    this.addSql(`drop index \`currency_lots_expires_at_index\`;`);

    this.addSql(`create index currency_lots_unspent_expires_at_index on currency_lots (expires_at) where remaining > 0;`);

    this.addSql(`alter table \`participants\` add column \`peak_month\` text null;`);
    this.addSql(`alter table \`participants\` add column \`peak_level\` integer null;`);
    this.addSql(`alter table \`participants\` add column \`prior_month_peak_level\` integer null;`);
  }
}
