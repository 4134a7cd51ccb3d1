import { Migration } from "@mikro-orm/migrations";

export class Migration20261123233702_delivery_kinds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`deliveries\` add column \`kind\` text not null default 'client_delivered';`);
    this.addSql(`alter table \`deliveries\` add column \`note\` text null;`);
  }
}
