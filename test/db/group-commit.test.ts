import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../server/src/db/group-commit.js";

/**
 * The gathering logic of group commit (server/src/db/group-commit.ts),
 * with the window ended by hand: which submissions share a group, in what
 * order, and what each caller gets when a group fails.
 */

interface Recorder {
  groups: Array<{ key: string; items: string[] }>;
  alone: Array<{ key: string; item: string }>;
  /** Ends the pending windows, as the event loop's next turn would. */
  tick(): void;
  commit: GroupCommit<string, string>;
}

function recorder(opts: { cap?: number; failGroup?: (items: string[]) => boolean; failAlone?: (item: string) => boolean } = {}): Recorder {
  const windows: Array<() => void> = [];
  const rec: Recorder = {
    groups: [],
    alone: [],
    tick() {
      for (const flush of windows.splice(0)) flush();
    },
    commit: new GroupCommit<string, string>({
      cap: opts.cap ?? 128,
      schedule: (flush) => void windows.push(flush),
      async applyGroup(key, items) {
        rec.groups.push({ key, items });
        if (opts.failGroup?.(items)) throw new Error("group failed");
        return items.map((item) => `${item}@group`);
      },
      async applyOne(key, item) {
        rec.alone.push({ key, item });
        if (opts.failAlone?.(item)) throw new Error(`${item} is bad`);
        return `${item}@alone`;
      },
    }),
  };
  return rec;
}

describe("group commit", () => {
  it("applies what was submitted under one key in the same window as one group, each caller getting its own result", async () => {
    const rec = recorder();
    const answers = Promise.all(["a", "b", "c"].map((item) => rec.commit.submit("club:test", item)));
    expect(rec.commit.waiting("club:test")).toBe(3);
    rec.tick();
    expect(await answers).toEqual(["a@group", "b@group", "c@group"]);
    expect(rec.groups).toEqual([{ key: "club:test", items: ["a", "b", "c"] }]);
    expect(rec.alone).toEqual([]);
  });

  it("never mixes keys, and applies a lone submission alone", async () => {
    const rec = recorder();
    const answers = Promise.all([rec.commit.submit("k1", "a"), rec.commit.submit("k2", "b"), rec.commit.submit("k1", "c")]);
    rec.tick();
    expect(await answers).toEqual(["a@group", "b@alone", "c@group"]);
    expect(rec.groups).toEqual([{ key: "k1", items: ["a", "c"] }]);
    expect(rec.alone).toEqual([{ key: "k2", item: "b" }]);
  });

  it("closes a full group at once and starts the next one", async () => {
    const rec = recorder({ cap: 2 });
    const first = Promise.all([rec.commit.submit("k", "a"), rec.commit.submit("k", "b")]);
    // Full: applied without waiting for the window.
    expect(await first).toEqual(["a@group", "b@group"]);
    const second = Promise.all([rec.commit.submit("k", "c"), rec.commit.submit("k", "d"), rec.commit.submit("k", "e")]);
    rec.tick();
    expect(await second).toEqual(["c@group", "d@group", "e@alone"]);
    expect(rec.groups.map((group) => group.items)).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(rec.alone.map((one) => one.item)).toEqual(["e"]);
  });

  it("a submission after the window ends waits for the next one", async () => {
    const rec = recorder();
    const a = rec.commit.submit("k", "a");
    rec.tick();
    const b = rec.commit.submit("k", "b");
    const c = rec.commit.submit("k", "c");
    rec.tick();
    expect([await a, await b, await c]).toEqual(["a@alone", "b@group", "c@group"]);
  });

  it("keeps gathering while the key's previous group is being applied, and applies the gathered group when it ends", async () => {
    const windows: Array<() => void> = [];
    const started: string[][] = [];
    let finishFirst!: () => void;
    const commit = new GroupCommit<string, string>({
      cap: 128,
      maxInFlight: 1,
      schedule: (end) => void windows.push(end),
      applyGroup: async (_, items) => {
        started.push(items);
        return items;
      },
      applyOne: async (_, item) => {
        started.push([item]);
        if (item === "a") await new Promise<void>((resolve) => (finishFirst = resolve));
        return item;
      },
    });
    const a = commit.submit("k", "a");
    windows.splice(0).forEach((end) => end());
    // "a" is being applied: later submissions gather across several windows.
    const b = commit.submit("k", "b");
    windows.splice(0).forEach((end) => end());
    const c = commit.submit("k", "c");
    windows.splice(0).forEach((end) => end());
    await Promise.resolve();
    expect(started).toEqual([["a"]]);
    expect(commit.waiting("k")).toBe(2);
    finishFirst();
    expect([await a, await b, await c]).toEqual(["a", "b", "c"]);
    // Two windows ended while "a" ran: "b" and "c" gathered into one group.
    expect(started).toEqual([["a"], ["b", "c"]]);
  });

  it("when the group fails, applies each item alone in arrival order, so only the bad one fails", async () => {
    const rec = recorder({ failGroup: (items) => items.includes("bad"), failAlone: (item) => item === "bad" });
    const answers = ["a", "bad", "c"].map((item) =>
      rec.commit.submit("k", item).then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    );
    rec.tick();
    expect(await Promise.all(answers)).toEqual([{ value: "a@alone" }, { error: "bad is bad" }, { value: "c@alone" }]);
    expect(rec.alone.map((one) => one.item)).toEqual(["a", "bad", "c"]);
  });

  it("a group answering the wrong number of results fails every caller and applies nothing again", async () => {
    const windows: Array<() => void> = [];
    let applied = 0;
    const commit = new GroupCommit<string, string>({
      cap: 8,
      schedule: (flush) => void windows.push(flush),
      applyGroup: async () => ["only one"],
      applyOne: async (_, item) => {
        applied++;
        return item;
      },
    });
    const answers = ["a", "b"].map((item) => commit.submit("k", item).catch((error: Error) => error.message));
    windows.forEach((flush) => flush());
    expect(await Promise.all(answers)).toEqual(["a group of 2 answered 1 results", "a group of 2 answered 1 results"]);
    expect(applied).toBe(0);
  });

  it("gathers for one turn of the event loop by default", async () => {
    const groups: string[][] = [];
    const commit = new GroupCommit<number, number>({
      cap: 128,
      applyGroup: async (_, items) => {
        groups.push(items.map(String));
        return items.map((item) => item * 2);
      },
      applyOne: async (_, item) => item * 2,
    });
    expect(await Promise.all([1, 2, 3].map((item) => commit.submit("k", item)))).toEqual([2, 4, 6]);
    expect(groups).toEqual([["1", "2", "3"]]);
  });
});
