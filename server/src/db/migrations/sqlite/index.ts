// Written by server/src/db/make-migration.ts: the committed migrations, oldest first.
import type { MigrationObject } from "@mikro-orm/core";
import { Migration20261121054812_initial } from "./Migration20261121054812_initial.js";
import { Migration20261121064618_scheduled_jobs } from "./Migration20261121064618_scheduled_jobs.js";
import { Migration20261123204640_idempotency_keys } from "./Migration20261123204640_idempotency_keys.js";

export const migrations: MigrationObject[] = [
  { name: "Migration20261121054812_initial", class: Migration20261121054812_initial },
  { name: "Migration20261121064618_scheduled_jobs", class: Migration20261121064618_scheduled_jobs },
  { name: "Migration20261123204640_idempotency_keys", class: Migration20261123204640_idempotency_keys },
];
