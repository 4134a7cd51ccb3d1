import { Migration } from "@mikro-orm/migrations";

export class Migration20261124052629_events_idempotency_key_first extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" drop constraint "events_club_id_env_idempotency_key_unique";`);

    this.addSql(`alter table "events" add constraint "events_idempotency_key_club_id_env_unique" unique ("idempotency_key", "club_id", "env");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop constraint "events_idempotency_key_club_id_env_unique";`);

    this.addSql(`alter table "events" add constraint "events_club_id_env_idempotency_key_unique" unique ("club_id", "env", "idempotency_key");`);
  }
}
