import { Migration } from "@mikro-orm/migrations";

export class Migration20261124053425_events_status_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "events_status_received_at_index";`);

    // Room on each page for the new versions of rows every event updates, so that their updates (no indexed column
    // changes) stay on the page as HOT updates and write no index entry (only new pages honour it).
    this.addSql(`alter table "participants" set (fillfactor = 80);`);
    this.addSql(`alter table "balances" set (fillfactor = 80);`);
    this.addSql(`alter table "mission_progress" set (fillfactor = 80);`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "events_status_received_at_index" on "events" ("status", "received_at");`);

    this.addSql(`alter table "participants" reset (fillfactor);`);
    this.addSql(`alter table "balances" reset (fillfactor);`);
    this.addSql(`alter table "mission_progress" reset (fillfactor);`);
  }
}
