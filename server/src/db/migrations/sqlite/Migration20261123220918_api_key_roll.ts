import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220918_api_key_roll extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`api_keys\` add column \`last4\` text null;`);
    this.addSql(`alter table \`api_keys\` add column \`expires_at\` datetime null;`);

    this.addSql(`alter table \`club_secrets\` add column \`previous_token_signing_secret\` text null;`);
    this.addSql(`alter table \`club_secrets\` add column \`previous_expires_at\` datetime null;`);
  }
}
