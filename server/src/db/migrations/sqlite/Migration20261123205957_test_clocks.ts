import { Migration } from "@mikro-orm/migrations";

export class Migration20261123205957_test_clocks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`test_clocks\` (\`id\` text not null, \`club_id\` text not null, \`now\` datetime not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`test_clocks_club_id_unique\` on \`test_clocks\` (\`club_id\`);`);
  }
}
