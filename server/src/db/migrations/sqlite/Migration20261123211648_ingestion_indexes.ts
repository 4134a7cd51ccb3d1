import { Migration } from "@mikro-orm/migrations";

export class Migration20261123211648_ingestion_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index \`outbox_messages_relayed_at_created_at_index\`;`);

    this.addSql(`create index outbox_messages_unrelayed_created_at_index on outbox_messages (created_at) where relayed_at is null;`);

    this.addSql(`drop index \`participants_club_id_env_referral_code_unique\`;`);

    this.addSql(`create unique index participants_referral_code_partial_unique on participants (club_id, env, referral_code) where referral_code is not null;`);
  }
}
