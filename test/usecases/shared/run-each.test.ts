import { describe, expect, it } from "vitest";
import { runEach } from "../../../server/src/usecases/shared/run-each.js";

describe("runEach", () => {
  it("runs every item in order, from a list or an async source", async () => {
    const seen: number[] = [];
    await runEach([1, 2], String, async (n) => void seen.push(n));
    async function* more() {
      yield 3;
      yield 4;
    }
    await runEach(more(), String, async (n) => void seen.push(n));
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("goes on past a failed item and throws every failure at the end, each named", async () => {
    const seen: string[] = [];
    const run = runEach(
      ["club_a", "club_b", "club_c"],
      (club) => `cashback of ${club}`,
      async (club) => {
        seen.push(club);
        if (club !== "club_b") throw new Error(`${club} has no published configuration`);
      },
    );
    const error = await run.then(
      () => null,
      (err: unknown) => err,
    );
    expect(seen).toEqual(["club_a", "club_b", "club_c"]);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((failure: Error) => failure.message)).toEqual([
      "cashback of club_a failed: club_a has no published configuration",
      "cashback of club_c failed: club_c has no published configuration",
    ]);
    expect((error as AggregateError).message).toContain("2 of the job's items failed");
  });
});
