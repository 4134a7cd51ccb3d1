import { Migration } from "@mikro-orm/migrations";

export class Migration20261127101935_delivery_payload extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`deliveries\` add column \`payload\` json null;`);
  }
}
