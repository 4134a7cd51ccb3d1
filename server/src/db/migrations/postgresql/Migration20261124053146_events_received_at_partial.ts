import { Migration } from "@mikro-orm/migrations";

export class Migration20261124053146_events_received_at_partial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "events_club_id_env_received_at_index";`);

    this.addSql(`create index events_club_id_env_received_at_partial_index on events (club_id, env, received_at) where received_at is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_club_id_env_received_at_partial_index";`);

    this.addSql(`create index "events_club_id_env_received_at_index" on "events" ("club_id", "env", "received_at");`);
  }
}
