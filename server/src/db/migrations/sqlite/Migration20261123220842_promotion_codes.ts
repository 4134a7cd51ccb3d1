import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220842_promotion_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`code_redemptions\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`code_id\` text not null, \`participant_id\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`code_redemptions_code_id_participant_id_index\` on \`code_redemptions\` (\`code_id\`, \`participant_id\`);`);

    this.addSql(
      `create table \`promotion_codes\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`code\` text not null, \`reward\` text not null, \`max_redemptions\` integer null, \`per_participant_limit\` integer not null, \`starts_at\` datetime null, \`ends_at\` datetime null, \`audience_tag\` text null, \`status\` text not null, \`redemptions\` integer not null, \`created_at\` datetime not null, \`disabled_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`promotion_codes_club_id_env_created_at_index\` on \`promotion_codes\` (\`club_id\`, \`env\`, \`created_at\`);`);
    this.addSql(`create unique index \`promotion_codes_club_id_env_code_unique\` on \`promotion_codes\` (\`club_id\`, \`env\`, \`code\`);`);
  }
}
