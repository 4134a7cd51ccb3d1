import { Migration } from "@mikro-orm/migrations";

export class Migration20261127162615_webhook_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`webhook_attempts\` (\`sending_id\` text not null, \`number\` integer not null, \`club_id\` text not null, \`env\` text not null, \`started_at\` datetime not null, \`duration_ms\` integer not null, \`outcome\` text not null, \`http_status\` integer null, \`error\` text null, \`resend\` integer not null, primary key (\`sending_id\`, \`number\`));`,
    );
  }
}
