import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204640_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("club_id" varchar(40) not null, "env" varchar(32) not null, "key" varchar(128) not null, "operation_id" varchar(64) not null, "fingerprint" varchar(64) not null, "state" varchar(32) not null, "locked_until" timestamptz not null, "created_at" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("club_id", "env", "key"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
