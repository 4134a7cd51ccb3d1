import { Migration } from "@mikro-orm/migrations";

export class Migration20261127101501_staff_access extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`audit_entries\` (\`id\` text not null, \`club_id\` text not null, \`env\` text null, \`actor_type\` text not null, \`actor_id\` text not null, \`action\` text not null, \`target\` text null, \`summary\` text not null, \`ip\` text not null, \`request_id\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`audit_entries_club_id_created_at_index\` on \`audit_entries\` (\`club_id\`, \`created_at\`);`);

    this.addSql(
      `create table \`staff_members\` (\`id\` text not null, \`club_id\` text not null, \`email\` text not null, \`display_name\` text not null, \`role\` text not null, \`env\` text null, \`disabled\` integer not null, \`password_hash\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`staff_members_club_id_email_unique\` on \`staff_members\` (\`club_id\`, \`email\`);`);

    this.addSql(
      `create table \`staff_notification_reads\` (\`id\` text not null, \`staff_id\` text not null, \`warning_id\` text not null, \`read_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`staff_notification_reads_staff_id_warning_id_unique\` on \`staff_notification_reads\` (\`staff_id\`, \`warning_id\`);`);

    this.addSql(
      `create table \`staff_sessions\` (\`id\` text not null, \`token_hash\` text not null, \`club_id\` text not null, \`staff_id\` text not null, \`csrf_token\` text not null, \`created_at\` datetime not null, \`last_seen_at\` datetime not null, \`expires_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`staff_sessions_token_hash_unique\` on \`staff_sessions\` (\`token_hash\`);`);
    this.addSql(`create index \`staff_sessions_staff_id_index\` on \`staff_sessions\` (\`staff_id\`);`);
  }
}
