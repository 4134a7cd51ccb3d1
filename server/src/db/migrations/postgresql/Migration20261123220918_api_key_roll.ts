import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220918_api_key_roll extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "api_keys" add column "last4" varchar(4) null, add column "expires_at" timestamptz null;`);

    this.addSql(`alter table "club_secrets" add column "previous_token_signing_secret" varchar(64) null, add column "previous_expires_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop column "last4", drop column "expires_at";`);

    this.addSql(`alter table "club_secrets" drop column "previous_token_signing_secret", drop column "previous_expires_at";`);
  }
}
