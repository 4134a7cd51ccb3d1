import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204232_tournaments extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "tournament_settlements" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "tournament_id" varchar(80) not null, "edition_key" varchar(32) not null, "results" jsonb not null, "settled_at" timestamptz not null, constraint "tournament_settlements_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "tournament_settlements" add constraint "tournament_settlements_club_id_env_tournament_id__14ee3_unique" unique ("club_id", "env", "tournament_id", "edition_key");`,
    );

    this.addSql(
      `create table "tournament_standings" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "tournament_id" varchar(80) not null, "edition_key" varchar(32) not null, "score" bigint not null, "reached_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tournament_standings_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "tournament_standings_club_id_env_tournament_id_edi_0f46d_index" on "tournament_standings" ("club_id", "env", "tournament_id", "edition_key", "score", "reached_at");`,
    );
    this.addSql(
      `alter table "tournament_standings" add constraint "tournament_standings_participant_id_tournament_id_713dd_unique" unique ("participant_id", "tournament_id", "edition_key");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "tournament_settlements" cascade;`);

    this.addSql(`drop table if exists "tournament_standings" cascade;`);
  }
}
