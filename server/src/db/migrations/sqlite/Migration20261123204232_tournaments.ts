import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204232_tournaments extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`tournament_settlements\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`tournament_id\` text not null, \`edition_key\` text not null, \`results\` json not null, \`settled_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(
      `create unique index \`tournament_settlements_club_id_env_tournament_id_edition_key_unique\` on \`tournament_settlements\` (\`club_id\`, \`env\`, \`tournament_id\`, \`edition_key\`);`,
    );

    this.addSql(
      `create table \`tournament_standings\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`tournament_id\` text not null, \`edition_key\` text not null, \`score\` bigint not null, \`reached_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(
      `create index \`tournament_standings_club_id_env_tournament_id_edition_key_score_reached_at_index\` on \`tournament_standings\` (\`club_id\`, \`env\`, \`tournament_id\`, \`edition_key\`, \`score\`, \`reached_at\`);`,
    );
    this.addSql(
      `create unique index \`tournament_standings_participant_id_tournament_id_edition_key_unique\` on \`tournament_standings\` (\`participant_id\`, \`tournament_id\`, \`edition_key\`);`,
    );
  }
}
