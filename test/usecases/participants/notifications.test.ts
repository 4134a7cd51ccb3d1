import { afterAll, beforeAll, expect, it } from "vitest";
import { Notification, Participant } from "../../../server/src/db/entities/index.js";
import { newId } from "../../../server/src/db/ids.js";
import { claimCheckin } from "../../../server/src/usecases/checkin/checkin.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { listNotifications, markAllNotificationsRead, markNotificationRead } from "../../../server/src/usecases/participants/notifications.js";
import { upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { expectResponse } from "../../support/contract.js";

describeEachDatabase("notification use cases", (kind) => {
  let club: DatabaseClub;
  const ids: string[] = [];
  beforeAll(async () => {
    club = await openTestClub(kind);
    await upsertParticipant(club.db, club.scope, { external_id: "ana" }, new Date("2026-11-01T12:00:00Z"));
    await upsertParticipant(club.db, club.scope, { external_id: "bruno" }, new Date("2026-11-01T12:00:00Z"));
    const ana = await club.db.em().findOneOrFail(Participant, { ...club.scope, externalId: "ana" });
    // 105 notifications, one a minute, the first 5 already read.
    const rows = Array.from({ length: 105 }, (_, i) => {
      const id = newId("ntf");
      ids.push(id);
      const createdAt = new Date(Date.UTC(2026, 10, 10, 12, i));
      return {
        id,
        ...club.scope,
        participantId: ana.id,
        kind: "message",
        title: `Mensagem ${i}`,
        body: i % 2 === 0 ? "Corpo" : null,
        view: null,
        createdAt,
        readAt: i < 5 ? new Date(createdAt.getTime() + 1000) : null,
      };
    });
    await club.db.em().insertMany(Notification, rows);
  });
  afterAll(async () => {
    await club?.close();
  });

  const refusal = (status: number, code: string) => expect.objectContaining({ constructor: ApiError, status, code });

  it("lists newest first, 20 by default, with the unread count of the whole inbox", async () => {
    const list = await listNotifications(club.db, club.scope, "ana", {});
    expect(list.unread_count).toBe(100);
    expectResponse("Me_listNotifications", "200", list);
    expect(list.data).toHaveLength(20);
    expect(list.data[0]).toEqual({
      id: ids[104],
      kind: "message",
      title: "Mensagem 104",
      body: "Corpo",
      view: null,
      createdAt: "2026-11-10T13:44:00.000Z",
      readAt: null,
    });
    expect(list.data[1]).toMatchObject({ title: "Mensagem 103", body: null });
  });

  it.each([
    [1, 1],
    [100, 100],
  ])("limit %i returns %i", async (limit, length) => {
    expect((await listNotifications(club.db, club.scope, "ana", { limit })).data).toHaveLength(length);
  });

  it("filters read and unread", async () => {
    const read = await listNotifications(club.db, club.scope, "ana", { unread: false, limit: 100 });
    expect(read.data.map((notification) => notification.title)).toEqual(["Mensagem 4", "Mensagem 3", "Mensagem 2", "Mensagem 1", "Mensagem 0"]);
    expect(read.unread_count).toBe(100);
    const unread = await listNotifications(club.db, club.scope, "ana", { unread: true, limit: 100 });
    expect(unread.data).toHaveLength(100);
    expect(unread.data.every((notification) => notification.readAt === null)).toBe(true);
  });

  it("marks one read, keeping the first readAt when repeated", async () => {
    const read = await markNotificationRead(club.db, club.scope, "ana", ids[50], new Date("2026-11-11T10:00:00Z"));
    expect(read).toMatchObject({ id: ids[50], readAt: "2026-11-11T10:00:00.000Z" });
    expectResponse("Me_markNotificationRead", "200", read);
    const again = await markNotificationRead(club.db, club.scope, "ana", ids[50], new Date("2026-11-12T10:00:00Z"));
    expect(again.readAt).toBe("2026-11-11T10:00:00.000Z");
    expect((await listNotifications(club.db, club.scope, "ana", {})).unread_count).toBe(99);
  });

  it("answers 404 for an unknown notification, another participant's, and an unknown participant", async () => {
    await expect(markNotificationRead(club.db, club.scope, "ana", "ntf_nao_existe", new Date())).rejects.toEqual(refusal(404, "not_found"));
    await expect(markNotificationRead(club.db, club.scope, "bruno", ids[60], new Date())).rejects.toEqual(refusal(404, "not_found"));
    await expect(listNotifications(club.db, club.scope, "ninguem", {})).rejects.toEqual(refusal(404, "not_found"));
    await expect(markAllNotificationsRead(club.db, club.scope, "ninguem", new Date())).rejects.toEqual(refusal(404, "not_found"));
  });

  it("marks every unread one read and says how many; a second time none", async () => {
    const marked = await markAllNotificationsRead(club.db, club.scope, "ana", new Date("2026-11-13T10:00:00Z"));
    expect(marked).toEqual({ updated: 99 });
    expectResponse("Me_markAllNotificationsRead", "200", marked);
    expect(await markAllNotificationsRead(club.db, club.scope, "ana", new Date("2026-11-13T10:00:00Z"))).toEqual({ updated: 0 });
    expect((await listNotifications(club.db, club.scope, "ana", {})).unread_count).toBe(0);
    expect((await markNotificationRead(club.db, club.scope, "ana", ids[50], new Date())).readAt).toBe("2026-11-11T10:00:00.000Z");
  });

  it("shows what happened to the participant, such as a check-in reward", async () => {
    await claimCheckin(club.db, club.scope, "bruno", { now: new Date("2026-11-14T15:00:00Z"), publicUrl: PUBLIC_URL });
    const list = await listNotifications(club.db, club.scope, "bruno", {});
    expect(list).toEqual({
      data: [expect.objectContaining({ kind: "reward_granted", title: "Você ganhou: 50 moedas", view: "rewards", readAt: null })],
      unread_count: 1,
    });
  });
});
