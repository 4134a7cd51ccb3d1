import { Migration } from "@mikro-orm/migrations";

export class Migration20261125010200_standings_identity_key extends Migration {
  override async up(): Promise<void> {
    // The standing's identity becomes its primary key, and the surrogate id (read by nothing) goes with its index:
    // standings are never updated HOT (the score is in the ranking index), so every index got an entry per update.
    this.addSql(`alter table "tournament_standings" drop constraint "tournament_standings_participant_id_tournament_id_713dd_unique";`);
    this.addSql(`alter table "tournament_standings" drop constraint "tournament_standings_pkey";`);
    this.addSql(`alter table "tournament_standings" drop column "id";`);

    this.addSql(
      `alter table "tournament_standings" add constraint "tournament_standings_pkey" primary key ("participant_id", "tournament_id", "edition_key");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "tournament_standings" drop constraint "tournament_standings_pkey";`);

    this.addSql(`alter table "tournament_standings" add column "id" varchar(40) not null default ('tst_' || replace(gen_random_uuid()::text, '-', ''));`);
    this.addSql(`alter table "tournament_standings" alter column "id" drop default;`);
    this.addSql(
      `alter table "tournament_standings" add constraint "tournament_standings_participant_id_tournament_id_713dd_unique" unique ("participant_id", "tournament_id", "edition_key");`,
    );
    this.addSql(`alter table "tournament_standings" add constraint "tournament_standings_pkey" primary key ("id");`);
  }
}
