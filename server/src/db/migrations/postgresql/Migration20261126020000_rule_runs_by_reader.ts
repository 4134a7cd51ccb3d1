import { Migration } from "@mikro-orm/migrations";

export class Migration20261126020000_rule_runs_by_reader extends Migration {
  override async up(): Promise<void> {
    // Rule runs stored by what reads them (see the RuleDedupeKey and RuleRunDay entities): the dedupe keys fired, and
    // per (participant, rule, club day) the runs, the amounts granted per unit and the last run. Backfilled from
    // rule_runs, which then goes. A day row is updated by every later run of its day: room on its page keeps those
    // updates HOT, as for the rows of migration 20261125010100_hot_update_room.
    this.addSql(
      `create table "rule_dedupe_keys" ("rule_id" varchar(64) not null, "dedupe_key" varchar(200) not null, "participant_id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "event_id" varchar(40) null, "fired_at" timestamptz not null, constraint "rule_dedupe_keys_pkey" primary key ("rule_id", "dedupe_key", "participant_id"));`,
    );
    this.addSql(
      `create table "rule_run_days" ("participant_id" varchar(40) not null, "rule_id" varchar(64) not null, "day_key" varchar(10) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "runs" int not null, "amounts" jsonb not null, "last_run_at" timestamptz not null, constraint "rule_run_days_pkey" primary key ("participant_id", "rule_id", "day_key")) with (fillfactor = 50);`,
    );
    this.addSql(`insert into "rule_dedupe_keys" ("rule_id", "dedupe_key", "participant_id", "club_id", "env", "event_id", "fired_at")
      select "rule_id", "dedupe_key", "participant_id", "club_id", "env", "event_id", "run_at" from "rule_runs" where "dedupe_key" is not null;`);
    // Every rule's days, limited or not: which rules have limits is the club's configuration, not the schema's.
    this.addSql(`insert into "rule_run_days" ("participant_id", "rule_id", "day_key", "club_id", "env", "runs", "amounts", "last_run_at")
      with "days" as (
        select "participant_id", "rule_id", "day_key", min("club_id") as "club_id", min("env") as "env", count(*) as "runs", max("run_at") as "last_run_at"
        from "rule_runs" group by 1, 2, 3),
      "units" as (
        select r."participant_id", r."rule_id", r."day_key", a."key", sum(cast(a."value" as bigint)) as "total"
        from "rule_runs" as r cross join jsonb_each_text(r."amounts") as a group by 1, 2, 3, 4),
      "sums" as (select "participant_id", "rule_id", "day_key", jsonb_object_agg("key", "total") as "amounts" from "units" group by 1, 2, 3)
      select d."participant_id", d."rule_id", d."day_key", d."club_id", d."env", d."runs", coalesce(s."amounts", '{}'::jsonb), d."last_run_at"
      from "days" as d left join "sums" as s on s."participant_id" = d."participant_id" and s."rule_id" = d."rule_id" and s."day_key" = d."day_key";`);
    this.addSql(`drop table "rule_runs";`);
  }

  override async down(): Promise<void> {
    // The table as it was; the runs themselves are not restored (a day row does not say when each of its runs was).
    this.addSql(
      `create table "rule_runs" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "participant_id" varchar(40) not null, "rule_id" varchar(64) not null, "dedupe_key" varchar(200) null, "event_id" varchar(40) null, "day_key" varchar(10) not null, "amounts" jsonb not null, "run_at" timestamptz not null, constraint "rule_runs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "rule_runs_participant_id_rule_id_day_key_index" on "rule_runs" ("participant_id", "rule_id", "day_key");`);
    this.addSql(
      `alter table "rule_runs" add constraint "rule_runs_rule_id_dedupe_key_participant_id_unique" unique ("rule_id", "dedupe_key", "participant_id");`,
    );
    this.addSql(`drop table "rule_dedupe_keys";`);
    this.addSql(`drop table "rule_run_days";`);
  }
}
