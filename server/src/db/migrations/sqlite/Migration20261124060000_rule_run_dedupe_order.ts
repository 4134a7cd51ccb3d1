import { Migration } from "@mikro-orm/migrations";

export class Migration20261124060000_rule_run_dedupe_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index \`rule_runs_participant_id_rule_id_dedupe_key_unique\`;`);

    this.addSql(
      `create unique index \`rule_runs_rule_id_dedupe_key_participant_id_unique\` on \`rule_runs\` (\`rule_id\`, \`dedupe_key\`, \`participant_id\`);`,
    );
  }
}
