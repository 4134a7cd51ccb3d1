import { Migration } from "@mikro-orm/migrations";

export class Migration20261123211200_backtests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "backtests" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "version" int not null, "from" timestamptz not null, "to" timestamptz not null, "status" varchar(32) not null, "events_total" int not null, "events_done" int not null, "result" jsonb null, "error" text null, "created_at" timestamptz not null, "finished_at" timestamptz null, constraint "backtests_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "backtests_club_id_env_created_at_index" on "backtests" ("club_id", "env", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "backtests" cascade;`);
  }
}
