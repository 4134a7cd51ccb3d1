import type { SqlEntityManager } from "@mikro-orm/knex";
import { OutboxMessage } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { endpointsByScope, type ScopeEndpoints } from "../webhooks/subscribers.js";
import type { OutboxBatch, OutboxStore, PendingRow } from "./outbox-store.js";

/** A relay batch through the ORM, outside a transaction: no claim (see OutboxStore.batch). */
class OrmOutboxBatch implements OutboxBatch {
  constructor(private readonly em: SqlEntityManager) {}

  pending(limit: number): Promise<PendingRow[]> {
    return this.em.find(OutboxMessage, { relayedAt: null }, { orderBy: { createdAt: "asc", id: "asc" }, limit, disableIdentityMap: true });
  }

  endpoints(scopes: readonly Scope[]): Promise<ScopeEndpoints> {
    return endpointsByScope(this.em, scopes);
  }

  async markRelayed(ids: readonly string[], at: Date): Promise<void> {
    await this.em.nativeUpdate(OutboxMessage, { id: { $in: [...ids] } }, { relayedAt: at });
  }
}

/** The SQLite adapter: the ORM, outside a transaction. */
export function ormOutboxStore(db: Database): OutboxStore {
  return {
    batch: (use) => use(new OrmOutboxBatch(db.em())),
    purgeRelayed: (cutoff) => db.em().nativeDelete(OutboxMessage, { relayedAt: { $lt: cutoff } }),
  };
}
