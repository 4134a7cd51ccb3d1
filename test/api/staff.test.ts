import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AuditEntry, StaffSession, StaffWarning } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { loginLimitFromEnv } from "../../server/src/http/login-limit.js";
import { redactForViewer } from "../../server/src/http/staff-session.js";
import type { StaffRole } from "../../server/src/db/entities/index.js";
import { createStaffMember } from "../../server/src/usecases/staff/index.js";
import * as passwords from "../../server/src/usecases/staff/passwords.js";
import { demoConfig, expectError, manualClock, type ApiResponse, type RequestOptions, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/*
 * Staff accounts: sign-in with a session cookie, roles enforced on every
 * operation (403 naming the permission), CSRF on state-changing requests,
 * tenancy (another club's session gets 404), the audit log and notifications.
 */

const PASSWORD = "Plenty-of-words 42 here";

interface Session {
  cookie: string;
  csrf: string;
  staffId: string;
  /** A request with the session cookie (and the CSRF token unless `csrf: null`), without any key. */
  request(method: string, path: string, options?: RequestOptions & { csrf?: string | null; env?: string }): Promise<ApiResponse>;
}

let counter = 0;

async function addStaff(api: TestApi, clubId: string, role: StaffRole, env: "test" | "live" | null = null): Promise<{ email: string; id: string }> {
  const email = `${role}-${++counter}@sorte.example`;
  const { member } = await createStaffMember(api.db, clubId, { email, display_name: `${role} ${counter}`, role, env, password: PASSWORD }, new Date());
  return { email, id: member.id };
}

function login(api: TestApi, clubId: string, email: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api.request("POST", "/v1/staff/sessions", { key: null, body: { club_id: clubId, email, password }, headers });
}

async function signIn(api: TestApi, clubId: string, email: string): Promise<Session> {
  const response = await login(api, clubId, email);
  expect(response.status).toBe(201);
  const setCookie = response.headers.get("set-cookie") ?? "";
  const cookie = /clube_session=([^;]+)/.exec(setCookie)![1];
  const csrf: string = response.body.csrf_token;
  return {
    cookie,
    csrf,
    staffId: response.body.staff.id,
    request: (method, path, options = {}) => {
      const headers: Record<string, string> = { Cookie: `clube_session=${cookie}`, ...options.headers };
      const token = options.csrf === undefined ? csrf : options.csrf;
      if (token !== null) headers["X-CSRF-Token"] = token;
      if (options.env) headers["Clube-Env"] = options.env;
      return api.request(method, path, { ...options, key: null, headers });
    },
  };
}

describeEachDatabase("staff access", (kind) => {
  let api: TestApi;
  const sessions = {} as Record<StaffRole, Session>;
  const staff = {} as Record<StaffRole, { email: string; id: string }>;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
    for (const role of ["owner", "operator", "viewer"] as const) {
      staff[role] = await addStaff(api, api.clubId, role);
      sessions[role] = await signIn(api, api.clubId, staff[role].email);
    }
  });
  afterAll(() => api?.close());

  it("signs in with an HttpOnly SameSite=Lax cookie and answers who is signed in", async () => {
    const response = await login(api, api.clubId, staff.operator.email.toUpperCase());
    expect(response.status).toBe(201);
    const cookie = response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^clube_session=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    expect(cookie).not.toContain("Secure");
    // A new cookie on every sign-in.
    expect(cookie).not.toContain(sessions.operator.cookie);
    const current = await sessions.operator.request("GET", "/v1/staff/sessions/current");
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      club_id: api.clubId,
      staff: { id: staff.operator.id, role: "operator", env: null },
      csrf_token: sessions.operator.csrf,
    });
    expect(current.body.permissions).toContain("config.publish");
    expect(current.body.permissions).not.toContain("keys.write");
    // Only the cookie's hash is stored.
    const rows = await api.db.em().fork().find(StaffSession, {});
    expect(JSON.stringify(rows)).not.toContain(sessions.operator.cookie);
  });

  it("marks the cookie Secure behind a trusted HTTPS proxy", async () => {
    const proxied = await openTestClub(kind, { api: true, env: { CLUBE_TRUST_PROXY: "1" } });
    try {
      const { email } = await addStaff(proxied, proxied.clubId, "viewer");
      const response = await login(proxied, proxied.clubId, email, PASSWORD, { "X-Forwarded-Proto": "https" });
      expect(response.headers.get("set-cookie")).toMatch(/; Secure$/);
    } finally {
      await proxied.close();
    }
  });

  // Each role against a table of operations: allowed → 2xx, refused → 403 naming the permission.
  const table: { name: string; permission: string; allowed: StaffRole[]; call: (s: Session) => Promise<ApiResponse> }[] = [
    { name: "GET /v1/config", permission: "config.read", allowed: ["owner", "operator", "viewer"], call: (s) => s.request("GET", "/v1/config") },
    { name: "GET /v1/deliveries", permission: "deliveries.read", allowed: ["owner", "operator", "viewer"], call: (s) => s.request("GET", "/v1/deliveries") },
    { name: "GET /v1/keys", permission: "keys.read", allowed: ["owner", "operator", "viewer"], call: (s) => s.request("GET", "/v1/keys") },
    { name: "GET /v1/audit_log", permission: "audit_log.read", allowed: ["owner", "operator", "viewer"], call: (s) => s.request("GET", "/v1/audit_log") },
    { name: "GET /v1/staff/roles", permission: "roles.read", allowed: ["owner", "operator", "viewer"], call: (s) => s.request("GET", "/v1/staff/roles") },
    {
      name: "PUT /v1/config/draft",
      permission: "config.write",
      allowed: ["owner", "operator"],
      call: async (s) => s.request("PUT", "/v1/config/draft", { body: await demoConfig() }),
    },
    {
      name: "POST /v1/test_clock/advance",
      permission: "test_clock.write",
      allowed: ["owner", "operator"],
      call: (s) => s.request("POST", "/v1/test_clock/advance", { body: { to: new Date(Date.now() + ++counter * 3_600_000).toISOString() } }),
    },
    { name: "POST /v1/keys", permission: "keys.write", allowed: ["owner"], call: (s) => s.request("POST", "/v1/keys") },
    {
      name: "POST /v1/token_signing_secret/roll",
      permission: "keys.write",
      allowed: ["owner"],
      call: (s) => s.request("POST", "/v1/token_signing_secret/roll", { body: { expire_old_after_seconds: 600 } }),
    },
    { name: "GET /v1/staff/members", permission: "staff.manage", allowed: ["owner"], call: (s) => s.request("GET", "/v1/staff/members") },
    {
      name: "POST /v1/participants/{id}/token",
      permission: "participants.tokens",
      allowed: ["owner"],
      call: async (s) => {
        await api.request("POST", "/v1/participants", { body: { external_id: "tok-user" } });
        return s.request("POST", "/v1/participants/tok-user/token", { body: {} });
      },
    },
  ];
  for (const role of ["owner", "operator", "viewer"] as const) {
    describe(`as ${role}`, () => {
      for (const row of table) {
        const allowed = row.allowed.includes(role);
        it(`${row.name} → ${allowed ? "2xx" : `403 naming ${row.permission}`}`, async () => {
          const response = await row.call(sessions[role]);
          if (allowed) {
            expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(200);
            expect(response.status).toBeLessThan(300);
          } else {
            expectError(response, 403, "forbidden", row.permission);
          }
        });
      }
    });
  }

  it("never sends a viewer contact data or secrets", async () => {
    const endpoint = await sessions.owner.request("POST", "/v1/webhook_endpoints", {
      body: { url: "https://hooks.sorte.example/clube", enabled_events: ["*"] },
    });
    const ownerMembers = await sessions.owner.request("GET", "/v1/staff/members");
    expect(JSON.stringify(ownerMembers.body)).toContain(staff.viewer.email);

    const reads = [
      "/v1/webhook_endpoints",
      "/v1/keys",
      "/v1/audit_log",
      "/v1/staff/roles",
      "/v1/deliveries",
      "/v1/events",
      "/v1/warnings",
      "/v1/staff/notifications",
      "/v1/config",
    ];
    for (const path of reads) {
      const response = await sessions.viewer.request("GET", path);
      expect(response.status, path).toBe(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toMatch(/[A-Za-z0-9._-]+@sorte\.example/);
      expect(text).not.toContain("whsec_");
      expect(text).not.toContain(api.keys.test);
    }
    if (endpoint.status === 201)
      expect(JSON.stringify((await sessions.viewer.request("GET", `/v1/webhook_endpoints/${endpoint.body.id}`)).body)).not.toContain(endpoint.body.secret);
    // Fields named like contact data or secrets are redacted at any depth.
    expect(redactForViewer({ meta: { email: "a@b.c", phone: "+55 11 9", nested: [{ webhook_secret: "whsec_x", ok: 1 }] }, name: "Ana" })).toEqual({
      meta: { email: "[redacted]", phone: "[redacted]", nested: [{ webhook_secret: "[redacted]", ok: 1 }] },
      name: "Ana",
    });
  });

  it("answers 404 to a session of club A on club B's resources, as keys do", async () => {
    const other = await api.createOtherClub();
    const { email } = await addStaff(api, other.clubId, "owner");
    const foreign = await signIn(api, other.clubId, email);
    const key = (await sessions.owner.request("POST", "/v1/keys")).body;
    expectError(await foreign.request("POST", `/v1/keys/${key.id}/roll`, { body: {} }), 404, "not_found");
    expectError(await foreign.request("GET", `/v1/staff/members/${staff.viewer.id}`), 404, "not_found");
    // Club A's cookie cannot sign in to club B either.
    expectError(await login(api, other.clubId, staff.owner.email), 401, "invalid_credentials");
  });

  it("refuses cross-site state-changing requests with a valid cookie", async () => {
    const s = sessions.owner;
    expectError(await s.request("POST", "/v1/keys", { csrf: null }), 403, "csrf_failed");
    expectError(await s.request("POST", "/v1/keys", { csrf: "not-the-token" }), 403, "csrf_failed");
    expectError(await s.request("POST", "/v1/keys", { headers: { Origin: "https://evil.example" } }), 403, "csrf_failed");
    // The server's own origin with the token is accepted; reads need no token.
    expect((await s.request("POST", "/v1/keys", { headers: { Origin: "http://localhost:0" } })).status).toBe(201);
    expect((await s.request("GET", "/v1/keys", { csrf: null })).status).toBe(200);
  });

  it("chooses the environment by Clube-Env and refuses the other one to a member limited to one", async () => {
    const live = await sessions.owner.request("GET", "/v1/keys", { env: "live" });
    expect(live.body.data.every((k: { env: string }) => k.env === "live")).toBe(true);
    const test = await sessions.owner.request("GET", "/v1/keys");
    expect(test.body.data.every((k: { env: string }) => k.env === "test")).toBe(true);
    const { email } = await addStaff(api, api.clubId, "operator", "test");
    const limited = await signIn(api, api.clubId, email);
    expect((await limited.request("GET", "/v1/config", { env: "test" })).status).toBe(200);
    expectError(await limited.request("GET", "/v1/config", { env: "live" }), 403, "forbidden", "test environment");
    expectError(await limited.request("GET", "/v1/config", { env: "staging" }), 422, "validation_failed", "Clube-Env");
  });

  it("ends sessions at once on logout, staff removal, disabling and password change", async () => {
    const member = await addStaff(api, api.clubId, "operator");
    const first = await signIn(api, api.clubId, member.email);
    const second = await signIn(api, api.clubId, member.email);
    const out = await first.request("DELETE", "/v1/staff/sessions/current");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^clube_session=; .*Max-Age=0/);
    expectError(await first.request("GET", "/v1/config"), 401, "unauthorized");
    expect((await second.request("GET", "/v1/config")).status).toBe(200);

    // Password change: the other sessions end, this one stays.
    const third = await signIn(api, api.clubId, member.email);
    expectError(
      await second.request("POST", "/v1/staff/password", { body: { current_password: "wrong password!!", new_password: "another long passphrase" } }),
      422,
      "validation_failed",
      "body.current_password",
    );
    expectError(
      await second.request("POST", "/v1/staff/password", { body: { current_password: PASSWORD, new_password: "password1234" } }),
      422,
      "validation_failed",
      "body.new_password",
    );
    const changed = await second.request("POST", "/v1/staff/password", { body: { current_password: PASSWORD, new_password: "another long passphrase" } });
    expect(changed.status).toBe(200);
    expectError(await third.request("GET", "/v1/config"), 401, "unauthorized");
    expect((await second.request("GET", "/v1/config")).status).toBe(200);

    const disabled = await sessions.owner.request("PATCH", `/v1/staff/members/${member.id}`, { body: { disabled: true } });
    expect(disabled.body).toMatchObject({ id: member.id, disabled: true });
    expectError(await second.request("GET", "/v1/config"), 401, "unauthorized");
    expectError(await login(api, api.clubId, member.email, "another long passphrase"), 401, "invalid_credentials");

    const removable = await addStaff(api, api.clubId, "viewer");
    const session = await signIn(api, api.clubId, removable.email);
    expect((await sessions.owner.request("DELETE", `/v1/staff/members/${removable.id}`)).status).toBe(200);
    expectError(await session.request("GET", "/v1/config"), 401, "unauthorized");
    expectError(await sessions.owner.request("GET", `/v1/staff/members/${removable.id}`), 404, "not_found");
  });

  it("manages staff: temporary passwords, duplicate e-mails, weak passwords and the last owner", async () => {
    const created = await sessions.owner.request("POST", "/v1/staff/members", { body: { email: "Nova@Sorte.example", display_name: "Nova", role: "viewer" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: "nova@sorte.example", role: "viewer", env: null, disabled: false });
    expect(created.body.temporary_password).toMatch(/^\w{4}-\w{4}-\w{4}-\w{4}$/);
    expect((await login(api, api.clubId, "nova@sorte.example", created.body.temporary_password)).status).toBe(201);
    expectError(
      await sessions.owner.request("POST", "/v1/staff/members", { body: { email: "nova@sorte.example", display_name: "Again", role: "viewer" } }),
      409,
      "conflict",
    );
    expectError(
      await sessions.owner.request("POST", "/v1/staff/members", {
        body: { email: "weak@sorte.example", display_name: "Weak", role: "viewer", password: "weak@sorte.example" },
      }),
      422,
      "validation_failed",
      "body.password",
    );
    expectError(
      await sessions.owner.request("POST", "/v1/staff/members", {
        body: { email: "short@sorte.example", display_name: "S", role: "viewer", password: "short" },
      }),
      422,
      "validation_failed",
      "body.password",
    );
    expectError(
      await sessions.owner.request("PATCH", `/v1/staff/members/${staff.owner.id}`, { body: { role: "viewer" } }),
      409,
      "conflict",
      "last enabled owner",
    );
    expectError(await sessions.owner.request("DELETE", `/v1/staff/members/${staff.owner.id}`), 409, "conflict");
  });

  it("answers an unknown e-mail exactly like a wrong password, after the same hashing work", async () => {
    const wrong = await login(api, api.clubId, staff.viewer.email, "not the password at all");
    const unknown = await login(api, api.clubId, "nobody@sorte.example", "not the password at all");
    const unknownClub = await login(api, "club_nope", staff.viewer.email, "not the password at all");
    for (const response of [wrong, unknown, unknownClub]) {
      expectError(response, 401, "invalid_credentials");
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    expect(unknown.body).toEqual(wrong.body);
    expect(unknownClub.body).toEqual(wrong.body);
    // Both paths run scrypt once: an unknown account is verified against an unusable hash of the same cost.
    const known = await passwords.hashPassword("some other password");
    const t0 = performance.now();
    expect(await passwords.verifyPassword("not the password at all", null)).toBe(false);
    const unknownMs = performance.now() - t0;
    const t1 = performance.now();
    expect(await passwords.verifyPassword("not the password at all", known)).toBe(false);
    const knownMs = performance.now() - t1;
    // Same scrypt parameters on both paths: the cost is within a small factor, not orders of magnitude apart.
    expect(unknownMs).toBeGreaterThan(knownMs / 4);
    expect(unknownMs).toBeLessThan(knownMs * 4);
  });

  it("records a publish, a key roll and a staff-confirmed delivery once each with the right actor", async () => {
    const config = await demoConfig();
    config.rewards.push({ code: "camisa-vip", title: "Camisa oficial VIP", type: "manual" });
    config.rules.push({
      id: "vip-prize",
      name: "Prêmio VIP",
      trigger: { event: "custom.vip_prize" },
      effects: [{ type: "grant_reward", reward: "camisa-vip" }],
    });
    expect((await sessions.operator.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    const versions = (await api.request("GET", "/v1/config/versions")).body.data as { version: number; status: string }[];
    const previous = versions.find((v) => v.status === "published")!.version;
    const published = await sessions.operator.request("POST", "/v1/config/publish", { body: {} });
    expect(published.status).toBe(200);

    const key = (await api.request("POST", "/v1/keys")).body;
    const keyId = (await api.request("GET", "/v1/keys")).body.data.find((k: { key_prefix: string }) => api.keys.test.startsWith(k.key_prefix))?.id;
    const rolled = await api.request("POST", `/v1/keys/${key.id}/roll`, { body: {} });
    expect(rolled.status).toBe(200);

    const sent = await api.request("POST", "/v1/events", { body: { participant: "ana", type: "custom.vip_prize" } });
    const deliveryId = sent.body.effects.find((e: { type: string }) => e.type === "reward_granted").delivery_id;
    expect((await sessions.operator.request("POST", `/v1/deliveries/${deliveryId}/confirm`, { body: { note: "sent by post" } })).status).toBe(200);
    // Confirming again changes nothing but is another staff action; a key's confirm is the client's normal traffic.
    const log = async (query: string) => (await sessions.viewer.request("GET", `/v1/audit_log?${query}`)).body.data as any[];

    const publishes = await log("action=ConfigVersions_publish");
    expect(publishes).toHaveLength(1);
    expect(publishes[0]).toMatchObject({ actor_type: "staff", actor_id: staff.operator.id, env: "test", target: String(published.body.version) });
    expect(publishes[0].summary).toBe(`published version ${published.body.version} (was ${previous})`);

    const rolls = await log(`action=ApiKeys_roll&target=${key.id}`);
    expect(rolls).toHaveLength(1);
    expect(rolls[0]).toMatchObject({ actor_type: "key", actor_id: keyId, target: key.id, ip: expect.stringMatching(/127\.0\.0\.1/) });

    const confirms = await log(`target=${deliveryId}`);
    expect(confirms).toHaveLength(1);
    expect(confirms[0]).toMatchObject({ action: "Deliveries_confirm", actor_type: "staff", actor_id: staff.operator.id });

    // Filters by actor and time; the CSV export carries the same entries.
    const byOperator = await log(`actor=${staff.operator.id}`);
    expect(byOperator.map((e) => e.action)).toEqual(expect.arrayContaining(["ConfigVersions_publish", "ConfigVersions_saveDraft", "Deliveries_confirm"]));
    expect(await log(`from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    const csv = await sessions.viewer.request("GET", "/v1/audit_log.csv?action=ConfigVersions_publish");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.body.split("\r\n")[0]).toBe("id,created_at,env,actor_type,actor_id,action,target,summary,ip,request_id");
    expect(csv.body).toContain(publishes[0].id);

    // Reads are not recorded; entries cannot be changed through any route.
    expect(await api.db.em().fork().count(AuditEntry, { action: "Config_get" })).toBe(0);
    expect((await sessions.owner.request("DELETE", `/v1/audit_log`)).status).toBe(405);
  });

  it("lists staff warnings as notifications with a per-member read state", async () => {
    const id = newId("wrn");
    const em = api.db.em().fork();
    em.create(StaffWarning, {
      id,
      clubId: api.clubId,
      env: "test",
      kind: "delivery_failed",
      subjectId: "dlv_x",
      message: "Delivery dlv_x failed",
      createdAt: new Date(),
    });
    await em.flush();
    const before = await sessions.operator.request("GET", "/v1/staff/notifications");
    expect(before.body.data.find((n: { id: string }) => n.id === id)).toMatchObject({ kind: "delivery_failed", read_at: null });
    const read = await sessions.operator.request("POST", `/v1/staff/notifications/${id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.read_at).not.toBeNull();
    const after = await sessions.operator.request("GET", "/v1/staff/notifications?unread=true");
    expect(after.body.data.map((n: { id: string }) => n.id)).not.toContain(id);
    expect(after.body.unread_count).toBe(before.body.unread_count - 1);
    // Another member still has it unread; the live environment does not show it.
    expect((await sessions.viewer.request("GET", "/v1/staff/notifications?unread=true")).body.data.map((n: { id: string }) => n.id)).toContain(id);
    expect((await sessions.viewer.request("GET", "/v1/staff/notifications", { env: "live" })).body.data.map((n: { id: string }) => n.id)).not.toContain(id);
    expectError(await sessions.operator.request("POST", "/v1/staff/notifications/wrn_nope/read"), 404, "not_found");
  });
});

describe("staff sign-in rate limit setting", () => {
  it("is 20 failures per 15 minutes unless CLUBE_RATE_LIMIT_LOGIN says <failures>/<seconds>", () => {
    expect(loginLimitFromEnv(undefined)).toEqual({ points: 20, seconds: 900 });
    expect(loginLimitFromEnv("3/900")).toEqual({ points: 3, seconds: 900 });
    expect(() => loginLimitFromEnv("3 per minute")).toThrow(/CLUBE_RATE_LIMIT_LOGIN/);
  });
});

describeEachDatabase("staff sign-in rate limit", (kind) => {
  // A small budget through the setting: every failed sign-in costs one scrypt run, and the count is what matters.
  const FAILURES = 3;
  let api: TestApi;
  beforeAll(async () => {
    vi.stubEnv("CLUBE_RATE_LIMIT_LOGIN", `${FAILURES}/900`);
    api = await openTestClub(kind, { api: true });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await api?.close();
  });

  it("answers 429 with Retry-After after the configured number of wrong passwords, also for the right one", async () => {
    const { email } = await addStaff(api, api.clubId, "owner");
    for (let i = 0; i < FAILURES; i++) expectError(await login(api, api.clubId, email, `wrong password ${i}`), 401, "invalid_credentials");
    const limited = await login(api, api.clubId, email);
    expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  }, 120_000);
});

describeEachDatabase("staff session lifetime", (kind) => {
  const T0 = new Date("2026-11-20T12:00:00Z");
  const clock = manualClock(T0);
  const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
  let api: TestApi;
  let email: string;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    email = (await addStaff(api, api.clubId, "viewer")).email;
  });
  afterAll(() => api?.close());

  it("ends a session after 30 idle minutes, and 12 hours after sign-in however active", async () => {
    clock.set(T0);
    const idle = await signIn(api, api.clubId, email);
    clock.set(minutes(29));
    expect((await idle.request("GET", "/v1/config")).status).toBe(200);
    clock.set(minutes(58));
    expect((await idle.request("GET", "/v1/config")).status).toBe(200);
    clock.set(minutes(88));
    expectError(await idle.request("GET", "/v1/config"), 401, "unauthorized");

    clock.set(T0);
    const active = await signIn(api, api.clubId, email);
    for (let m = 20; m < 720; m += 20) {
      clock.set(minutes(m));
      expect((await active.request("GET", "/v1/staff/sessions/current")).status).toBe(200);
    }
    clock.set(minutes(720));
    expectError(await active.request("GET", "/v1/staff/sessions/current"), 401, "unauthorized");
  });

  it("replaces the browser's session on a new sign-in", async () => {
    clock.set(T0);
    const first = await signIn(api, api.clubId, email);
    const again = await login(api, api.clubId, email, PASSWORD, { Cookie: `clube_session=${first.cookie}` });
    expect(again.status).toBe(201);
    expectError(await first.request("GET", "/v1/config"), 401, "unauthorized");
  });
});
