// What a client developer types: `clube.<resource>.<method>`. Derived from the
// contract (resource from the operation's tag, method from the operationId
// after `_`), with the exceptions below where the derived name would stutter
// or change a public name the SDKs already had. A new operation needs an
// entry only when the derived name is wrong; two operations landing on the
// same name fail the generator.

/** Tag → resource property, where the camel-cased tag is not the right word. */
const RESOURCE_OF_TAG: Record<string, string> = {
  "Event log": "events",
  "Staff warnings": "warnings",
  Keys: "key",
  "API keys": "apiKeys",
};

/** operationId → `resource.method`, where the derived name is not the right one. */
const NAME_OF_OPERATION: Record<string, string> = {
  // The calling key's description shares the "API keys" tag but is its own resource.
  Keys_get: "key.get",
  Participants_progressBatch: "participants.progressMany",
  Participants_createToken: "participants.token",
  EventLog_sendTest: "events.test",
  ConfigVersions_list: "config.versions",
  WebhookEndpoints_listSendings: "webhookEndpoints.sendings",
  WebhookSendings_resend: "webhookEndpoints.resend",
  WebhookSendings_get: "webhookEndpoints.sending",
  ParticipantLedger_list: "participants.ledger",
  Backtests_run: "config.backtest",
  Backtests_get: "config.backtestJob",
  WheelAudit_list: "participants.wheelSpins",
  TestClocks_get: "testClock.get",
  TestClocks_advance: "testClock.advance",
  TestClocks_delete: "testClock.delete",
  Me_spinWheel: "me.spin",
  Me_redeemStoreItem: "me.redeem",
  Me_markNotificationRead: "me.markRead",
  Me_markAllNotificationsRead: "me.markAllRead",
  StaffSessions_create: "staff.login",
  StaffSessions_get: "staff.session",
  StaffSessions_delete: "staff.logout",
  StaffPasswords_change: "staff.changePassword",
  StaffRoles_list: "staff.roles",
  StaffNotifications_list: "staff.notifications",
  StaffNotifications_markRead: "staff.markNotificationRead",
};

export interface SdkName {
  resource: string;
  method: string;
}

export function sdkName(operationId: string, tag: string): SdkName {
  const fixed = NAME_OF_OPERATION[operationId];
  if (fixed) {
    const [resource, method] = fixed.split(".");
    return { resource, method };
  }
  const resource = RESOURCE_OF_TAG[tag] ?? camelCase(tag);
  let method = operationId.slice(operationId.indexOf("_") + 1);
  // The participant surface reads as nouns: `me.profile()`, `me.missions()`.
  if (resource === "me") method = method.replace(/^(get|list)([A-Z])/, (_, __, first: string) => first.toLowerCase());
  return { resource, method };
}

export function camelCase(words: string): string {
  const parts = words.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p[0].toLowerCase() + p.slice(1) : p[0].toUpperCase() + p.slice(1))).join("");
}

export function pascalCase(words: string): string {
  const camel = camelCase(words);
  return camel[0].toUpperCase() + camel.slice(1);
}
