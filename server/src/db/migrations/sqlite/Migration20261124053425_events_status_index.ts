import { Migration } from "@mikro-orm/migrations";

export class Migration20261124053425_events_status_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index \`events_status_received_at_index\`;`);
  }
}
