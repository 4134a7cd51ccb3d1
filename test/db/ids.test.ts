import { describe, expect, it } from "vitest";
import { newId, newTimeOrderedId } from "../../server/src/db/ids.js";

describe("ids", () => {
  it("time-ordered ids have newId's shape", () => {
    expect(newId("evt")).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(newTimeOrderedId("evt")).toMatch(/^evt_[0-9A-Za-z]{24}$/);
  });

  it("time-ordered ids sort by creation time and differ within a millisecond", async () => {
    const first = Array.from({ length: 1000 }, () => newTimeOrderedId("run"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newTimeOrderedId("run");
    expect(new Set(first).size).toBe(first.length);
    for (const id of first) expect(id < later).toBe(true);
    expect(first[0].slice(0, 12) <= first[first.length - 1].slice(0, 12)).toBe(true);
  });
});
