import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Club } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import { rootFile } from "../root.js";
import { createClub } from "../usecases/clubs.js";

/** The demo club's keys, kept in the data directory so `npm start` can print the test key on every run. */
export interface DemoClub {
  club_id: string;
  keys: { test: string; live: string };
}

const DEMO_FILE = "demo-club.json";

/**
 * On the first start against an empty database, creates the demo club (a
 * Brazilian online casino, server/src/demo/casino.json) and stores its keys in
 * `<dataDir>/demo-club.json`. Keys are otherwise only stored hashed; this file
 * exists so a developer trying Clube locally always has a working test key.
 * Returns null when the database already had clubs and none is the demo club.
 */
export async function ensureDemoClub(db: Database, dataDir: string): Promise<DemoClub | null> {
  const file = join(dataDir, DEMO_FILE);
  const saved = await readSaved(file);
  if (saved && (await db.em().count(Club, { id: saved.club_id })) === 1) return saved;
  if ((await db.em().count(Club, {})) > 0) return null;
  const config = JSON.parse(await readFile(rootFile("server/src/demo/casino.json"), "utf8"));
  const created = await createClub(db, { name: "Clube Demo — Sorte Grande", config });
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  return created;
}

async function readSaved(file: string): Promise<DemoClub | null> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as DemoClub;
  } catch {
    return null;
  }
}
