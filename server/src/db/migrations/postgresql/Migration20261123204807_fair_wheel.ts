import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204807_fair_wheel extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "wheel_seeds" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "server_seed" varchar(64) not null, "server_seed_hash" varchar(64) not null, "client_seed" varchar(64) not null, "next_nonce" int not null, "created_at" timestamptz not null, "revealed_at" timestamptz null, constraint "wheel_seeds_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "wheel_seeds_participant_id_revealed_at_index" on "wheel_seeds" ("participant_id", "revealed_at");`);

    this.addSql(`alter table "wheel_spins" add column "seed_id" varchar(40) null, add column "nonce" int null, add column "weights" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "wheel_seeds" cascade;`);

    this.addSql(`alter table "wheel_spins" drop column "seed_id", drop column "nonce", drop column "weights";`);
  }
}
