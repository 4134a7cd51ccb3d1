/**
 * What one stored-players batch of 500 (the bench's casino mix, as in
 * batch-profile.ts) sends to PostgreSQL and gets back: per statement, its
 * text's head, each parameter's kind and size in bytes, and the rows
 * returned. Not a test: `npx tsx bench/micro/pg-parameters.ts`
 * (PARAM_SAMPLE=n prints the first n characters of each parameter).
 */
import { ingestBatch } from "../../server/src/usecases/events/ingest.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";
import { observePgQueries } from "./pg-queries.js";
import { casinoEvent } from "./casino-mix.js";

const SAMPLE = Number(process.env.PARAM_SAMPLE ?? 0);
let recording = false;
const lines: string[] = [];
observePgQueries((query, self, args) => {
  const result = query.apply(self, args);
  if (!recording) return result;
  const config = args[0] as string | { text: string; values?: unknown[] };
  const text = typeof config === "string" ? config : config.text;
  const values = typeof config === "string" ? [] : (config.values ?? []);
  // A Buffer goes in binary (db/hot/pg-binary-arrays.ts): its element type's OID is at byte 8.
  const shown = (value: unknown) =>
    Buffer.isBuffer(value)
      ? `binary, element ${value.length >= 12 ? value.readInt32BE(8) : "?"}`
      : typeof value === "string"
        ? value
        : (JSON.stringify(value) ?? "undefined");
  const size = (value: unknown) => (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(shown(value)));
  const sizes = values.map(
    (value, i) =>
      `    $${i + 1} ${Buffer.isBuffer(value) ? "buffer" : Array.isArray(value) ? "array" : typeof value} ${size(value)} B${SAMPLE ? `  ${shown(value).slice(0, SAMPLE)}` : ""}`,
  );
  const total = values.reduce<number>((sum, value) => sum + size(value), 0);
  const entry = `${text.replace(/\s+/g, " ").slice(0, 140)}\n  ${values.length} parameters, ${total} B`;
  if (result instanceof Promise) {
    result.then(
      (r: { rows?: unknown[] }) => lines.push(`${entry}, ${r.rows?.length ?? 0} rows (${JSON.stringify(r.rows ?? []).length} B as JSON)\n${sizes.join("\n")}`),
      () => {},
    );
  }
  return result;
});

const club = await openTestClub("postgresql");
try {
  let next = 0;
  const batch = () => Array.from({ length: 500 }, () => eventInput(casinoEvent(next++, 2000)));
  for (let b = 0; b < 8; b++) await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  recording = true;
  await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  recording = false;
  await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(lines.join("\n"));
} finally {
  await club.close();
}
