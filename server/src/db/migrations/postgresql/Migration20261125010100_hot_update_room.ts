import { Migration } from '@mikro-orm/migrations';

export class Migration20261125010100_hot_update_room extends Migration {

  override async up(): Promise<void> {
    // Half of each page free for the new versions of the rows every event updates (a participant, its balances, its
    // missions), so that their updates stay HOT: no indexed column changes, and with room on the page they write no
    // index entry. At 80 a batch of 500 events found no room for about half of them (≈ 40 % HOT for participants,
    // 50 % for mission progress): each such update wrote an entry into every index of the table and left a dead one
    // behind. At 50: 95–100 % HOT, ~4 ms less PostgreSQL CPU per batch (test/micro/batch-costs.ts). Only new pages
    // honour it: an existing table gets it as it grows, or at once from a VACUUM FULL.
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
