import { it } from "vitest";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { requirePublishedConfig } from "../../server/src/usecases/config.js";
import { ingestEvent } from "../../server/src/usecases/events.js";
import { clubTimeZone, loadParticipantState, lockParticipant } from "../../server/src/usecases/participant-state.js";
import { eventInput, openClub, PUBLIC_URL } from "./fixtures.js";

it.each(["sqlite", "postgresql"] as const)("profile %s", async (kind) => {
  const club = await openClub(kind);
  try {
    const now = new Date("2026-11-18T12:00:00Z");
    await ingestEvent(club.db, club.scope, eventInput({ participant: "p", type: "user.signed_up", id: "s" }), { now, publicUrl: PUBLIC_URL });
    const t = { cfg: 0, lock: 0, load: 0, eval: 0, tx: 0 };
    for (let i = 0; i < 20; i++) {
      let a = performance.now();
      const { config } = await requirePublishedConfig(club.db, club.scope);
      t.cfg += performance.now() - a;
      a = performance.now();
      await club.db.em().transactional(async (em) => {
        let b = performance.now();
        const p = (await lockParticipant(em, club.db.dialect, { ...club.scope, externalId: "p" }))!;
        t.lock += performance.now() - b;
        b = performance.now();
        const ev = { type: "bet.placed", id: `b${i}`, amount: 10, currency: "BRL", occurred_at: now.toISOString(), meta: { game_type: "video-slots" } };
        const state = await loadParticipantState(em, p, config, { now, timeZone: clubTimeZone(config), event: ev });
        t.load += performance.now() - b;
        b = performance.now();
        evaluate({ config, state, event: ev, now, timeZone: clubTimeZone(config) });
        t.eval += performance.now() - b;
      });
      t.tx += performance.now() - a;
    }
    console.log(kind, JSON.stringify(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, (v / 20).toFixed(2)]))));
  } finally { await club.close(); }
}, 120000);
