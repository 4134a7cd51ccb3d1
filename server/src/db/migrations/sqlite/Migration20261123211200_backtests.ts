import { Migration } from "@mikro-orm/migrations";

export class Migration20261123211200_backtests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`backtests\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`version\` integer not null, \`from\` datetime not null, \`to\` datetime not null, \`status\` text not null, \`events_total\` integer not null, \`events_done\` integer not null, \`result\` json null, \`error\` text null, \`created_at\` datetime not null, \`finished_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`backtests_club_id_env_created_at_index\` on \`backtests\` (\`club_id\`, \`env\`, \`created_at\`);`);
  }
}
