import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { Delivery, Participant, StaffWarning } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { insertWarning, UNCONFIRMED_DELIVERY_WARNING_MS, warnUnconfirmedDeliveries } from "../../server/src/jobs/warnings.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";

const scope: Scope = { clubId: "club_cassino", env: "live" };
const now = new Date("2025-03-03T12:00:00.000Z");
const HOUR = 3_600_000;

describeEachDatabase("48-hour unconfirmed delivery warnings", (kind) => {
  let db: Database;
  let closeDb: () => Promise<void>;
  let participantId: string;

  beforeAll(async () => {
    ({ db, close: closeDb } = await openTestDatabase(kind));
    participantId = newId("par");
    await db.em().insert(Participant, {
      id: participantId,
      ...scope,
      externalId: "user_8412",
      displayName: null,
      avatarUrl: null,
      email: null,
      phone: null,
      tags: [],
      flags: {},
      xp: 0,
      level: 1,
      tierCode: null,
      eventCounts: {},
      referralCode: null,
      createdAt: now,
      updatedAt: now,
    });
  });
  afterAll(() => closeDb());
  beforeEach(async () => {
    await db.em().nativeDelete(Delivery, {});
    await db.em().nativeDelete(StaffWarning, {});
  });

  async function addDelivery(createdAt: Date, fields: Partial<Delivery> = {}): Promise<string> {
    const id = newId("dlv");
    await db.em().insert(Delivery, {
      id,
      ...scope,
      participantId,
      participantRewardId: newId("rwd"),
      rewardCode: "giros-gratis-20",
      status: "pending",
      externalRef: null,
      failReason: null,
      details: null,
      createdAt,
      confirmedAt: null,
      warnedAt: null,
      ...fields,
    });
    return id;
  }
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it("warns about a delivery pending exactly 48 hours, not about one 1 ms younger", async () => {
    expect(UNCONFIRMED_DELIVERY_WARNING_MS).toBe(48 * HOUR);
    const due = await addDelivery(ago(48 * HOUR));
    const young = await addDelivery(ago(48 * HOUR - 1));
    expect(await warnUnconfirmedDeliveries(db, now)).toBe(1);

    const warnings = await db.em().find(StaffWarning, {});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      // The contract's id form: `wrn_…`.
      id: expect.stringMatching(/^wrn_/),
      ...scope,
      kind: "delivery_unconfirmed",
      subjectId: due,
      message: `Delivery ${due} (giros-gratis-20 for user_8412) is still pending after 48 hours`,
      createdAt: now,
    });
    expect((await db.em().findOneOrFail(Delivery, { id: due })).warnedAt).toEqual(now);
    expect((await db.em().findOneOrFail(Delivery, { id: young })).warnedAt).toBeNull();

    // One millisecond later the younger one is due too, and the first is not warned again.
    expect(await warnUnconfirmedDeliveries(db, new Date(now.getTime() + 1))).toBe(1);
    expect(await db.em().count(StaffWarning, { subjectId: due })).toBe(1);
    expect(await db.em().count(StaffWarning, {})).toBe(2);
  });

  it("never warns about confirmed or failed deliveries", async () => {
    await addDelivery(ago(100 * HOUR), { status: "delivered", confirmedAt: ago(99 * HOUR) });
    await addDelivery(ago(100 * HOUR), { status: "failed", failReason: "conta bloqueada" });
    expect(await warnUnconfirmedDeliveries(db, now)).toBe(0);
    expect(await db.em().count(StaffWarning, {})).toBe(0);
  });

  it("warns once per delivery when scans run concurrently, through every batch", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await addDelivery(ago(49 * HOUR + i)));
    const counts = await Promise.all([warnUnconfirmedDeliveries(db, now, 2), warnUnconfirmedDeliveries(db, now, 2)]);
    expect(counts[0] + counts[1]).toBe(5);
    const warned = await db.em().find(StaffWarning, {});
    expect(warned.map((w) => w.subjectId).sort()).toEqual(ids.sort());
  });

  it("adds a warning once per kind and subject", async () => {
    const warning = { ...scope, kind: "webhook_failed" as const, subjectId: "whd_1", message: "failed", createdAt: now };
    expect(await insertWarning(db.em(), warning)).toBe(true);
    expect(await insertWarning(db.em(), { ...warning, message: "again" })).toBe(false);
    expect(await db.em().find(StaffWarning, { subjectId: "whd_1" })).toHaveLength(1);
  });
});
