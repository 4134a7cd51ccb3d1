// Staff access: accounts, roles, sessions, the audit log and notifications (issue: staff accounts).
export * from "./permissions.js";
export * from "./passwords.js";
export * from "./members.js";
export * from "./audit.js";
export * from "./notifications.js";
