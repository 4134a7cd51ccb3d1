import { Migration } from "@mikro-orm/migrations";

export class Migration20261123233702_delivery_kinds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deliveries" add column "kind" varchar(32) not null default 'client_delivered', add column "note" varchar(500) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "deliveries" drop column "kind", drop column "note";`);
  }
}
