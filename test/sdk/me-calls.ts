// One call per participant-surface operation, shared by the browser client's
// contract test and the Node client's headless-mode contract test.
import type { MeMethods } from "../../sdk-browser/src/me.js";

export const meCalls: Record<string, (me: MeMethods) => Promise<unknown>> = {
  Me_getProfile: (me) => me.profile(),
  Me_getProgress: (me) => me.progress(),
  Me_listMissions: (me) => me.missions(),
  Me_claimMission: (me) => me.claimMission("deposito-semanal"),
  Me_getCheckin: (me) => me.checkin(),
  Me_claimCheckin: (me) => me.claimCheckin(),
  Me_getWheel: (me) => me.wheel(),
  Me_spinWheel: (me) => me.spin({ idempotencyKey: "spin-user_8412-2025-03-14" }),
  Me_listStore: (me) => me.store(),
  Me_redeemStoreItem: (me) => me.redeem("giros-10"),
  Me_listRewards: (me) => me.rewards(),
  Me_listNotifications: (me) => me.notifications({ unread: true, limit: 20 }),
  Me_markNotificationRead: (me) => me.markRead("ntf_01HQ9Z3K8A1B2C3D4E5F"),
  Me_markAllNotificationsRead: (me) => me.markAllRead(),
  Me_getCashback: (me) => me.cashback(),
  Me_claimCashback: (me) => me.claimCashback(),
  Me_getReferral: (me) => me.referral(),
  Me_listLeaderboards: (me) => me.leaderboards(),
  Me_getLeaderboard: (me) => me.leaderboard("torneio-slots-marco", { limit: 10 }),
  Me_listBadges: (me) => me.badges(),
};
