import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PendingWrites } from "../../../server/src/usecases/evaluation/pending-writes.js";

describe("PendingWrites.setMission", () => {
  it("keeps what a map by participant, mission and period kept: the latest progress in the first set's place, the first completion and claim times", () => {
    const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 1000);
    const call = fc.record({
      participant: fc.constantFrom("par_a", "par_b", "par_c"),
      mission: fc.constantFrom("m1", "m2"),
      period: fc.constantFrom("2026-11-24", "2026-W48"),
      progress: fc.nat(100),
      completed: fc.option(fc.nat(50), { nil: null }),
      claimed: fc.option(fc.nat(50), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 40 }), (calls) => {
        const writes = new PendingWrites();
        // The reference: the Map keyed by the three parts it replaced.
        const reference = new Map<string, Record<string, unknown>>();
        calls.forEach((c, i) => {
          const row = {
            id: `msp_${i}`,
            clubId: "club_1",
            env: "test" as const,
            participantId: c.participant,
            missionId: c.mission,
            periodKey: c.period,
            progress: c.progress,
            completedAt: c.completed === null ? null : at(c.completed),
            claimedAt: c.claimed === null ? null : at(c.claimed),
            updatedAt: at(i),
          };
          writes.setMission(row);
          const key = `${row.participantId}:${row.missionId}:${row.periodKey}`;
          const pending = reference.get(key) as typeof row | undefined;
          reference.set(key, pending ? { ...row, completedAt: pending.completedAt ?? row.completedAt, claimedAt: pending.claimedAt ?? row.claimedAt } : row);
        });
        expect(writes.missionProgress).toEqual([...reference.values()]);
      }),
      { numRuns: 1000 },
    );
  });
});
