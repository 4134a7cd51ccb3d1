import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

/**
 * A participant's balance in one currency, in the currency's minor unit.
 * Changed only by atomic increments (`raw('amount + ?', [n])`) next to a ledger
 * row, so concurrent writers never lose an update.
 */
export const Balance = defineEntity({
  name: "Balance",
  tableName: "balances",
  uniques: [{ properties: ["participantId", "currency"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    currency: p.string().length(24),
    amount: amountColumn(),
    updatedAt: p.datetime(),
  },
});
export type Balance = InferEntity<typeof Balance>;

/**
 * Every XP or currency change, append-only. `unit` is `xp` or a currency code;
 * `balanceAfter` is the balance (or total XP) right after this change.
 * `reason` says what caused it (`rule`, `mission`, `redemption`, `expiry`,
 * `merge`, …), `ruleId`/`eventId` point at the cause when there is one.
 */
export const LedgerEntry = defineEntity({
  name: "LedgerEntry",
  tableName: "ledger_entries",
  indexes: [{ properties: ["participantId", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    unit: p.string().length(24),
    delta: amountColumn(),
    balanceAfter: amountColumn(),
    reason: p.string().length(64),
    ruleId: p.string().length(120).nullable(),
    eventId: refColumn().nullable(),
    createdAt: p.datetime(),
  },
});
export type LedgerEntry = InferEntity<typeof LedgerEntry>;

/**
 * A grant of an expiring currency (`expiresInDays`): debits spend the oldest
 * lots first and an expiry job removes what is left of a lot when it expires.
 * `expiresAt` null = never expires.
 *
 * The expiry job looks for lots past `expiresAt` with something left. Spent
 * and expired lots (remaining 0) pile up forever, so its index is partial:
 * it holds only the lots with something left, and the job's scan stays the
 * size of what is left to expire (same SQL on SQLite and PostgreSQL).
 */
export const CurrencyLot = defineEntity({
  name: "CurrencyLot",
  tableName: "currency_lots",
  indexes: [
    { properties: ["participantId", "currency", "expiresAt"] },
    {
      name: "currency_lots_unspent_expires_at_index",
      expression: (table, columns, name) => `create index ${name} on ${table.name} (${columns.expiresAt}) where ${columns.remaining} > 0`,
    },
  ],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    currency: p.string().length(24),
    granted: amountColumn(),
    remaining: amountColumn(),
    expiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type CurrencyLot = InferEntity<typeof CurrencyLot>;
