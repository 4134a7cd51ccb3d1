import { Migration } from "@mikro-orm/migrations";

export class Migration20261126020000_rule_runs_by_reader extends Migration {
  override async up(): Promise<void> {
    // See the PostgreSQL migration of the same name. Rowid tables, though a text primary key is then a second B-tree:
    // whole rows of a WITHOUT ROWID table, inserted at scattered keys, split more pages.
    // Why: docs/performance-log.md#rule-runs-rowid-tables
    this.addSql(
      `create table \`rule_dedupe_keys\` (\`rule_id\` text not null, \`dedupe_key\` text not null, \`participant_id\` text not null, \`club_id\` text not null, \`env\` text not null, \`event_id\` text null, \`fired_at\` datetime not null, primary key (\`rule_id\`, \`dedupe_key\`, \`participant_id\`));`,
    );
    this.addSql(
      `create table \`rule_run_days\` (\`participant_id\` text not null, \`rule_id\` text not null, \`day_key\` text not null, \`club_id\` text not null, \`env\` text not null, \`runs\` integer not null, \`amounts\` json not null, \`last_run_at\` datetime not null, primary key (\`participant_id\`, \`rule_id\`, \`day_key\`));`,
    );
    this.addSql(`insert into \`rule_dedupe_keys\` (\`rule_id\`, \`dedupe_key\`, \`participant_id\`, \`club_id\`, \`env\`, \`event_id\`, \`fired_at\`)
      select \`rule_id\`, \`dedupe_key\`, \`participant_id\`, \`club_id\`, \`env\`, \`event_id\`, \`run_at\` from \`rule_runs\` where \`dedupe_key\` is not null;`);
    // Every rule's days, limited or not: which rules have limits is the club's configuration, not the schema's. The
    // amounts of a day summed per unit by a subquery probing the (participant_id, rule_id, day_key) index.
    this.addSql(`insert into \`rule_run_days\` (\`participant_id\`, \`rule_id\`, \`day_key\`, \`club_id\`, \`env\`, \`runs\`, \`amounts\`, \`last_run_at\`)
      select r.\`participant_id\`, r.\`rule_id\`, r.\`day_key\`, min(r.\`club_id\`), min(r.\`env\`), count(*),
        (select json_group_object(u.\`key\`, u.\`total\`) from (select a.\`key\`, sum(a.\`value\`) as \`total\` from \`rule_runs\` as d cross join json_each(d.\`amounts\`) as a
          where d.\`participant_id\` = r.\`participant_id\` and d.\`rule_id\` = r.\`rule_id\` and d.\`day_key\` = r.\`day_key\` group by a.\`key\`) as u),
        max(r.\`run_at\`)
      from \`rule_runs\` as r group by r.\`participant_id\`, r.\`rule_id\`, r.\`day_key\`;`);
    this.addSql(`drop table \`rule_runs\`;`);
  }
}
