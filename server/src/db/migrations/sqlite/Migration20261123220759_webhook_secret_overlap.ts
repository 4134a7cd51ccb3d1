import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220759_webhook_secret_overlap extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`webhook_endpoints\` add column \`previous_secret\` text null;`);
    this.addSql(`alter table \`webhook_endpoints\` add column \`previous_secret_expires_at\` datetime null;`);
  }
}
