import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204226_event_trace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`events\` add column \`trace\` json null;`);
  }
}
