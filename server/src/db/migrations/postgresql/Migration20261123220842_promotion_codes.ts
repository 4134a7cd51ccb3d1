import { Migration } from "@mikro-orm/migrations";

export class Migration20261123220842_promotion_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "code_redemptions" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "code_id" varchar(40) not null, "participant_id" varchar(40) not null, "created_at" timestamptz not null, constraint "code_redemptions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "code_redemptions_code_id_participant_id_index" on "code_redemptions" ("code_id", "participant_id");`);

    this.addSql(
      `create table "promotion_codes" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) not null, "code" varchar(32) not null, "reward" varchar(80) not null, "max_redemptions" int null, "per_participant_limit" int not null, "starts_at" timestamptz null, "ends_at" timestamptz null, "audience_tag" varchar(64) null, "status" varchar(32) not null, "redemptions" int not null, "created_at" timestamptz not null, "disabled_at" timestamptz null, constraint "promotion_codes_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "promotion_codes_club_id_env_created_at_index" on "promotion_codes" ("club_id", "env", "created_at");`);
    this.addSql(`alter table "promotion_codes" add constraint "promotion_codes_club_id_env_code_unique" unique ("club_id", "env", "code");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "code_redemptions" cascade;`);

    this.addSql(`drop table if exists "promotion_codes" cascade;`);
  }
}
