import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Club, StaffMember } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import { rootFile } from "../root.js";
import { createClub } from "../usecases/club/index.js";
import { createStaffMember, temporaryPassword } from "../usecases/staff/index.js";

/** The demo club's keys, kept in the data directory so `npm start` can print the test key on every run. */
export interface DemoClub {
  club_id: string;
  keys: { test: string; live: string };
  /** The demo owner's sign-in for the console (`POST /v1/staff/sessions`). */
  staff?: { email: string; password: string };
}

const DEMO_OWNER_EMAIL = "owner@demo.clube.example";

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
  if (saved && (await db.em().count(Club, { id: saved.club_id })) === 1) return withDemoOwner(db, file, saved);
  if ((await db.em().count(Club, {})) > 0) return null;
  const config = JSON.parse(await readFile(rootFile("server/src/demo/casino.json"), "utf8"));
  const created = await createClub(db, { name: "Clube Demo — Sorte Grande", config });
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  return withDemoOwner(db, file, created);
}

/**
 * The demo club's owner, made once with a random password kept beside the
 * keys (the database holds only its hash), so every start prints the same sign-in.
 */
async function withDemoOwner(db: Database, file: string, demo: DemoClub): Promise<DemoClub> {
  if (demo.staff) return demo;
  if ((await db.em().count(StaffMember, { clubId: demo.club_id, email: DEMO_OWNER_EMAIL })) > 0) return demo;
  const password = temporaryPassword();
  await createStaffMember(db, demo.club_id, { email: DEMO_OWNER_EMAIL, display_name: "Demo owner", role: "owner", password }, new Date());
  const withStaff = { ...demo, staff: { email: DEMO_OWNER_EMAIL, password } };
  await writeFile(file, `${JSON.stringify(withStaff, null, 2)}\n`, { mode: 0o600 });
  return withStaff;
}

async function readSaved(file: string): Promise<DemoClub | null> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as DemoClub;
  } catch {
    return null;
  }
}
