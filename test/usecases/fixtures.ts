import { readFileSync } from "node:fs";
import { schemaValidators } from "../../generated/validators.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { createClub } from "../../server/src/usecases/clubs.js";
import type { EventInput } from "../../server/src/usecases/events.js";
import { openTestDatabase, type DatabaseKind } from "../support/databases.js";

/** The demo casino configuration (BRL, coins and expiring gems, Bronze/Prata/Ouro/Diamante). */
export function casinoConfig(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL("../../server/src/demo/casino.json", import.meta.url), "utf8")) as Record<string, unknown>;
}

export const PUBLIC_URL = "https://clube.cassino.example.com";

export interface TestClub {
  db: Database;
  scope: Scope;
  close(): Promise<void>;
}

/** A fresh database of `kind` with one club whose published configuration is `config` (the demo casino by default). */
export async function openClub(kind: DatabaseKind, config: Record<string, unknown> = casinoConfig(), now = new Date("2026-11-01T12:00:00Z")): Promise<TestClub> {
  const { db, close } = await openTestDatabase(kind);
  try {
    const club = await createClub(db, { name: "Cassino Teste", config }, now);
    return { db, scope: { clubId: club.club_id, env: "test" }, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** An event input as the HTTP layer hands it over: validated against the contract, defaults filled. */
export function eventInput(input: Record<string, unknown>): EventInput {
  const copy = structuredClone(input);
  if (!schemaValidators.EventInput(copy)) throw new Error(`invalid test event: ${JSON.stringify(schemaValidators.EventInput.errors)}`);
  return copy as EventInput;
}
