import { Migration } from "@mikro-orm/migrations";

export class Migration20261123204807_fair_wheel extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`wheel_seeds\` (\`id\` text not null, \`club_id\` text not null, \`env\` text not null, \`participant_id\` text not null, \`server_seed\` text not null, \`server_seed_hash\` text not null, \`client_seed\` text not null, \`next_nonce\` integer not null, \`created_at\` datetime not null, \`revealed_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`wheel_seeds_participant_id_revealed_at_index\` on \`wheel_seeds\` (\`participant_id\`, \`revealed_at\`);`);

    this.addSql(`alter table \`wheel_spins\` add column \`seed_id\` text null;`);
    this.addSql(`alter table \`wheel_spins\` add column \`nonce\` integer null;`);
    this.addSql(`alter table \`wheel_spins\` add column \`weights\` json null;`);
  }
}
