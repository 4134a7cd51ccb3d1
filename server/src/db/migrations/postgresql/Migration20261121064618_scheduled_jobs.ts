import { Migration } from "@mikro-orm/migrations";

export class Migration20261121064618_scheduled_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "cashback_credits" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "day_key" varchar(10) not null, "loss" bigint not null, "pct" double precision not null, "amount" bigint not null, "participant_reward_id" varchar(40) not null, "delivery_id" varchar(40) null, "paid_at" timestamptz not null, constraint "cashback_credits_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "cashback_credits_participant_id_paid_at_index" on "cashback_credits" ("participant_id", "paid_at");`);
    this.addSql(`alter table "cashback_credits" add constraint "cashback_credits_participant_id_day_key_unique" unique ("participant_id", "day_key");`);

    this.addSql(
      `create table "tier_reviews" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "month_key" varchar(7) not null, "reviewed" boolean not null, "started_at" timestamptz not null, "finished_at" timestamptz null, constraint "tier_reviews_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "tier_reviews" add constraint "tier_reviews_club_id_env_month_key_unique" unique ("club_id", "env", "month_key");`);

    this.addSql(`drop index "currency_lots_expires_at_index";`);

    this.addSql(`create index currency_lots_unspent_expires_at_index on currency_lots (expires_at) where remaining > 0;`);

    this.addSql(
      `alter table "participants" add column "peak_month" varchar(7) null, add column "peak_level" int null, add column "prior_month_peak_level" int null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "cashback_credits" cascade;`);

    this.addSql(`drop table if exists "tier_reviews" cascade;`);

    this.addSql(`drop index "currency_lots_unspent_expires_at_index";`);

    this.addSql(`create index "currency_lots_expires_at_index" on "currency_lots" ("expires_at");`);

    this.addSql(`alter table "participants" drop column "peak_month", drop column "peak_level", drop column "prior_month_peak_level";`);
  }
}
