import { Migration } from "@mikro-orm/migrations";

export class Migration20261123205957_test_clocks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "test_clocks" ("id" varchar(40) not null, "club_id" varchar(40) not null, "now" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "test_clocks_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "test_clocks" add constraint "test_clocks_club_id_unique" unique ("club_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "test_clocks" cascade;`);
  }
}
