import { Migration } from "@mikro-orm/migrations";

/** PostgreSQL's page fill factor of the rows updated per event (see the PostgreSQL migration of the same name): SQLite has none, nothing to do. */
export class Migration20261125010100_hot_update_room extends Migration {
  override async up(): Promise<void> {}
}
