import { Migration } from "@mikro-orm/migrations";

export class Migration20261127162615_webhook_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_attempts" ("sending_id" varchar(40) not null, "number" int not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "started_at" timestamptz not null, "duration_ms" int not null, "outcome" varchar(32) not null, "http_status" int null, "error" text null, "resend" boolean not null, constraint "webhook_attempts_pkey" primary key ("sending_id", "number"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
  }
}
