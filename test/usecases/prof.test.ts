import { it } from "vitest";
import { ingestEvent } from "../../server/src/usecases/events.js";
import { eventInput, openClub, PUBLIC_URL } from "./fixtures.js";

it.each(["sqlite", "postgresql"] as const)("profile %s", async (kind) => {
  const club = await openClub(kind);
  try {
    const now = new Date("2026-11-18T12:00:00Z");
    await ingestEvent(club.db, club.scope, eventInput({ participant: "p", type: "user.signed_up", id: "s" }), { now, publicUrl: PUBLIC_URL });
    let queries = 0;
    const logger = club.db.orm.config.getLogger();
    club.db.orm.config.set("debug", ["query"]);
    (logger as any).log = (ns: string, msg: string) => { if (ns === "query") { queries++; if (process.env.SHOWQ) console.log(msg.slice(0, 200)); } };
    (logger as any).setDebugMode(["query"]);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const n = 30;
    for (let i = 0; i < n; i++) {
      await ingestEvent(club.db, club.scope, eventInput({ participant: "p", type: "bet.placed", id: `b${i}`, amount: 10, meta: { game_type: "video-slots" } }), { now, publicUrl: PUBLIC_URL });
    }
    const cpu = process.cpuUsage(c0);
    console.log(kind, "ms/event", ((performance.now() - t0) / n).toFixed(1), "cpu ms/event", ((cpu.user + cpu.system) / 1000 / n).toFixed(1), "queries/event", queries / n);
  } finally { await club.close(); }
}, 120000);
