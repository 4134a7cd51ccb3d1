import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220759_webhook_secret_overlap extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" add column "previous_secret" varchar(64) null, add column "previous_secret_expires_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" drop column "previous_secret", drop column "previous_secret_expires_at";`);
  }
}
