import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204640_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`idempotency_keys\` (\`club_id\` text not null, \`env\` text not null, \`key\` text not null, \`operation_id\` text not null, \`fingerprint\` text not null, \`state\` text not null, \`locked_until\` datetime not null, \`created_at\` datetime not null, primary key (\`club_id\`, \`env\`, \`key\`));`,
    );
  }
}
