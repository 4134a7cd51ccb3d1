import { Migration } from "@mikro-orm/migrations";

export class Migration20261124060000_rule_run_dedupe_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "rule_runs" drop constraint "rule_runs_participant_id_rule_id_dedupe_key_unique";`);

    this.addSql(
      `alter table "rule_runs" add constraint "rule_runs_rule_id_dedupe_key_participant_id_unique" unique ("rule_id", "dedupe_key", "participant_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "rule_runs" drop constraint "rule_runs_rule_id_dedupe_key_participant_id_unique";`);

    this.addSql(
      `alter table "rule_runs" add constraint "rule_runs_participant_id_rule_id_dedupe_key_unique" unique ("participant_id", "rule_id", "dedupe_key");`,
    );
  }
}
