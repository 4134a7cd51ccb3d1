import { Migration } from "@mikro-orm/migrations";

export class Migration20261127101501_staff_access extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "audit_entries" ("id" varchar(40) not null, "club_id" varchar(40) not null, "env" varchar(32) null, "actor_type" varchar(32) not null, "actor_id" varchar(40) not null, "action" varchar(64) not null, "target" varchar(128) null, "summary" text not null, "ip" varchar(64) not null, "request_id" varchar(64) not null, "created_at" timestamptz not null, constraint "audit_entries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "audit_entries_club_id_created_at_index" on "audit_entries" ("club_id", "created_at");`);

    this.addSql(
      `create table "staff_members" ("id" varchar(40) not null, "club_id" varchar(40) not null, "email" varchar(254) not null, "display_name" varchar(120) not null, "role" varchar(32) not null, "env" varchar(32) null, "disabled" boolean not null, "password_hash" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "staff_members_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "staff_members" add constraint "staff_members_club_id_email_unique" unique ("club_id", "email");`);

    this.addSql(
      `create table "staff_notification_reads" ("id" varchar(40) not null, "staff_id" varchar(40) not null, "warning_id" varchar(40) not null, "read_at" timestamptz not null, constraint "staff_notification_reads_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "staff_notification_reads" add constraint "staff_notification_reads_staff_id_warning_id_unique" unique ("staff_id", "warning_id");`,
    );

    this.addSql(
      `create table "staff_sessions" ("id" varchar(40) not null, "token_hash" varchar(64) not null, "club_id" varchar(40) not null, "staff_id" varchar(40) not null, "csrf_token" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, constraint "staff_sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "staff_sessions" add constraint "staff_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "staff_sessions_staff_id_index" on "staff_sessions" ("staff_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_entries" cascade;`);

    this.addSql(`drop table if exists "staff_members" cascade;`);

    this.addSql(`drop table if exists "staff_notification_reads" cascade;`);

    this.addSql(`drop table if exists "staff_sessions" cascade;`);
  }
}
