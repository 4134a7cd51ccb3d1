import { Migration } from "@mikro-orm/migrations";

export class Migration20261125010200_standings_identity_key extends Migration {
  override async up(): Promise<void> {
    // The standing's identity becomes its primary key, without the surrogate id (see the PostgreSQL migration of the
    // same name). SQLite changes a primary key only by rebuilding the table.
    this.addSql(
      `create table \`tournament_standings_rebuilt\` (\`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`tournament_id\` text not null, \`edition_key\` text not null, \`score\` bigint not null, \`reached_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`participant_id\`, \`tournament_id\`, \`edition_key\`));`,
    );
    this.addSql(
      `insert into \`tournament_standings_rebuilt\` (\`club_id\`, \`env\`, \`participant_id\`, \`tournament_id\`, \`edition_key\`, \`score\`, \`reached_at\`, \`updated_at\`) select \`club_id\`, \`env\`, \`participant_id\`, \`tournament_id\`, \`edition_key\`, \`score\`, \`reached_at\`, \`updated_at\` from \`tournament_standings\`;`,
    );
    this.addSql(`drop table \`tournament_standings\`;`);
    this.addSql(`alter table \`tournament_standings_rebuilt\` rename to \`tournament_standings\`;`);
    this.addSql(
      `create index \`tournament_standings_club_id_env_tournament_id_edition_key_score_reached_at_index\` on \`tournament_standings\` (\`club_id\`, \`env\`, \`tournament_id\`, \`edition_key\`, \`score\`, \`reached_at\`);`,
    );
  }
}
