// Written by server/src/db/make-migration.ts: the committed migrations, oldest first.
import type { MigrationObject } from "@mikro-orm/core";
import { Migration20261121054812_initial } from "./Migration20261121054812_initial.js";

export const migrations: MigrationObject[] = [
  { name: "Migration20261121054812_initial", class: Migration20261121054812_initial },
];
