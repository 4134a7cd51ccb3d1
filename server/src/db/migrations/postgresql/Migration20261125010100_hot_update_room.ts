import { Migration } from "@mikro-orm/migrations";

export class Migration20261125010100_hot_update_room extends Migration {
  override async up(): Promise<void> {
    // Half of each page free for the new versions of the rows every event updates (a participant, its balances, its
    // missions), so that their updates stay HOT: no indexed column changes, and with room on the page they write no
    // index entry. Why 50: docs/performance-log.md#fill-factor-50. Only new pages honour it: an existing table gets
    // it as it grows, or at once from a VACUUM FULL.
    this.addSql(`alter table "participants" set (fillfactor = 50);`);
    this.addSql(`alter table "balances" set (fillfactor = 50);`);
    this.addSql(`alter table "mission_progress" set (fillfactor = 50);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "participants" set (fillfactor = 80);`);
    this.addSql(`alter table "balances" set (fillfactor = 80);`);
    this.addSql(`alter table "mission_progress" set (fillfactor = 80);`);
  }
}
