import { Migration } from "@mikro-orm/migrations";

export class Migration20261124052629_events_idempotency_key_first extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index \`events_club_id_env_idempotency_key_unique\`;`);

    this.addSql(`create unique index \`events_idempotency_key_club_id_env_unique\` on \`events\` (\`idempotency_key\`, \`club_id\`, \`env\`);`);
  }
}
