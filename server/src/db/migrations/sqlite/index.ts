// Written by server/src/db/make-migration.ts: the committed migrations, oldest first.
import type { MigrationObject } from "@mikro-orm/core";
import { Migration20261121054812_initial } from "./Migration20261121054812_initial.js";
import { Migration20261121064618_scheduled_jobs } from "./Migration20261121064618_scheduled_jobs.js";
import { Migration20261123204226_event_trace } from "./Migration20261123204226_event_trace.js";
import { Migration20261123204232_tournaments } from "./Migration20261123204232_tournaments.js";
import { Migration20261123204640_idempotency_keys } from "./Migration20261123204640_idempotency_keys.js";
import { Migration20261123204807_fair_wheel } from "./Migration20261123204807_fair_wheel.js";
import { Migration20261123205957_test_clocks } from "./Migration20261123205957_test_clocks.js";
import { Migration20261123211200_backtests } from "./Migration20261123211200_backtests.js";
import { Migration20261123211648_ingestion_indexes } from "./Migration20261123211648_ingestion_indexes.js";
import { Migration20261123220759_webhook_secret_overlap } from "./Migration20261123220759_webhook_secret_overlap.js";
import { Migration20261123220842_promotion_codes } from "./Migration20261123220842_promotion_codes.js";
import { Migration20261123220918_api_key_roll } from "./Migration20261123220918_api_key_roll.js";
import { Migration20261123233702_delivery_kinds } from "./Migration20261123233702_delivery_kinds.js";
import { Migration20261124052629_events_idempotency_key_first } from "./Migration20261124052629_events_idempotency_key_first.js";
import { Migration20261124053146_events_received_at_partial } from "./Migration20261124053146_events_received_at_partial.js";
import { Migration20261124053425_events_status_index } from "./Migration20261124053425_events_status_index.js";
import { Migration20261124060000_rule_run_dedupe_order } from "./Migration20261124060000_rule_run_dedupe_order.js";
import { Migration20261125010100_hot_update_room } from "./Migration20261125010100_hot_update_room.js";
import { Migration20261125010200_standings_identity_key } from "./Migration20261125010200_standings_identity_key.js";
import { Migration20261126020000_rule_runs_by_reader } from "./Migration20261126020000_rule_runs_by_reader.js";
import { Migration20261127101501_staff_access } from "./Migration20261127101501_staff_access.js";

export const migrations: MigrationObject[] = [
  { name: "Migration20261121054812_initial", class: Migration20261121054812_initial },
  { name: "Migration20261121064618_scheduled_jobs", class: Migration20261121064618_scheduled_jobs },
  { name: "Migration20261123204226_event_trace", class: Migration20261123204226_event_trace },
  { name: "Migration20261123204232_tournaments", class: Migration20261123204232_tournaments },
  { name: "Migration20261123204640_idempotency_keys", class: Migration20261123204640_idempotency_keys },
  { name: "Migration20261123204807_fair_wheel", class: Migration20261123204807_fair_wheel },
  { name: "Migration20261123205957_test_clocks", class: Migration20261123205957_test_clocks },
  { name: "Migration20261123211200_backtests", class: Migration20261123211200_backtests },
  { name: "Migration20261123211648_ingestion_indexes", class: Migration20261123211648_ingestion_indexes },
  { name: "Migration20261123220759_webhook_secret_overlap", class: Migration20261123220759_webhook_secret_overlap },
  { name: "Migration20261123220842_promotion_codes", class: Migration20261123220842_promotion_codes },
  { name: "Migration20261123220918_api_key_roll", class: Migration20261123220918_api_key_roll },
  { name: "Migration20261123233702_delivery_kinds", class: Migration20261123233702_delivery_kinds },
  { name: "Migration20261124052629_events_idempotency_key_first", class: Migration20261124052629_events_idempotency_key_first },
  { name: "Migration20261124053146_events_received_at_partial", class: Migration20261124053146_events_received_at_partial },
  { name: "Migration20261124053425_events_status_index", class: Migration20261124053425_events_status_index },
  { name: "Migration20261124060000_rule_run_dedupe_order", class: Migration20261124060000_rule_run_dedupe_order },
  { name: "Migration20261125010100_hot_update_room", class: Migration20261125010100_hot_update_room },
  { name: "Migration20261125010200_standings_identity_key", class: Migration20261125010200_standings_identity_key },
  { name: "Migration20261126020000_rule_runs_by_reader", class: Migration20261126020000_rule_runs_by_reader },
  { name: "Migration20261127101501_staff_access", class: Migration20261127101501_staff_access },
];
