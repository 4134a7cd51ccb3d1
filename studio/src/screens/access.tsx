import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api.js";
import { formatDate, t } from "../i18n.js";
import { can, useStudio } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, SecretOnce, useAction, useQuery } from "../ui.js";

/** API keys, the token-signing secret, staff members and roles, and the audit log. */
export function Access() {
  const { env } = useStudio();
  const keys = useQuery(() => call(api.GET("/v1/keys")));
  const writable = can("keys.write");
  const create = useAction(async () => {
    const created = await call(api.POST("/v1/keys"));
    keys.reload();
    return created;
  });
  const roll = useAction(async (id: string) => {
    const rolled = await call(api.POST("/v1/keys/{id}/roll", { params: { path: { id } }, body: { expire_old_after_seconds: 3600 } }));
    keys.reload();
    return rolled.key;
  });
  const revoke = useAction(async (id: string) => {
    await call(api.DELETE("/v1/keys/{id}", { params: { path: { id } } }));
    keys.reload();
  });
  const tokenSecret = useAction(() => call(api.POST("/v1/token_signing_secret/roll", { body: { expire_old_after_seconds: 3600 } })));
  const secret = roll.result ?? create.result;
  return (
    <Page title={t("access.title")}>
      <section aria-labelledby="keys" class="card">
        <h2 id="keys">
          {t("access.keys")} · {t(env === "live" ? "env.live" : "env.test")}
        </h2>
        {writable && (
          <button type="button" class="primary" onClick={() => create.run()} disabled={create.pending}>
            {t("access.key.create")}
          </button>
        )}
        {secret && <SecretOnce label={secret.key_prefix} secret={secret.secret} />}
        {[create.error, roll.error, revoke.error].map((error, index) => error && <ErrorBox key={index} error={error} />)}
        <Loaded query={keys} empty={(list) => list.data.length === 0}>
          {(list) => (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">ID</th>
                    <th scope="col">Key</th>
                    <th scope="col">{t("common.created")}</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Revoked</th>
                    {writable && <th scope="col">{t("common.actions")}</th>}
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((key) => (
                    <tr key={key.id}>
                      <td>
                        <code>{key.id}</code>
                      </td>
                      <td>
                        <code>
                          {key.key_prefix}…{key.last4 ?? ""}
                        </code>
                      </td>
                      <td>{formatDate(key.created_at)}</td>
                      <td>{formatDate(key.expires_at)}</td>
                      <td>{formatDate(key.revoked_at)}</td>
                      {writable && (
                        <td>
                          {!key.revoked_at && (
                            <div class="row">
                              <ConfirmButton label={t("access.key.roll")} question={t("access.key.roll.confirm")} onConfirm={() => roll.run(key.id)} />
                              <ConfirmButton
                                label={t("access.key.revoke")}
                                class="danger"
                                question={t("access.key.revoke.confirm")}
                                onConfirm={() => revoke.run(key.id)}
                              />
                            </div>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </section>
      {writable && (
        <section aria-labelledby="token-secret" class="card">
          <h2 id="token-secret">{t("access.tokensecret")}</h2>
          <ConfirmButton label={t("access.tokensecret.roll")} question={t("access.tokensecret.confirm")} onConfirm={() => tokenSecret.run()} />
          {tokenSecret.error && <ErrorBox error={tokenSecret.error} />}
          {tokenSecret.result && <Notice>{t("access.tokensecret.rolled", { when: formatDate(tokenSecret.result.previous_expires_at) })}</Notice>}
        </section>
      )}
      {can("staff.manage") && <Staff />}
      <Roles />
      {can("audit_log.read") && <Audit />}
    </Page>
  );
}

function Staff() {
  const members = useQuery(() => call(api.GET("/v1/staff/members")));
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Schemas["StaffRole"]>("viewer");
  const add = useAction(async () => {
    const created = await call(api.POST("/v1/staff/members", { body: { email: email.trim(), display_name: name.trim(), role } }));
    members.reload();
    return created;
  });
  const update = useAction(async (id: string, body: Schemas["StaffMemberUpdateRequest"]) => {
    await call(api.PATCH("/v1/staff/members/{id}", { params: { path: { id } }, body }));
    members.reload();
  });
  const remove = useAction(async (id: string) => {
    await call(api.DELETE("/v1/staff/members/{id}", { params: { path: { id } } }));
    members.reload();
  });
  return (
    <section aria-labelledby="staff" class="card">
      <h2 id="staff">{t("access.staff")}</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void add.run();
        }}
      >
        <Field label={t("signin.email")}>
          <input type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Nome / Name">
          <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("access.role")}>
          <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Schemas["StaffRole"])}>
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="owner">owner</option>
          </select>
        </Field>
        <button type="submit">+</button>
      </form>
      {add.result?.temporary_password && <SecretOnce label={add.result.email} secret={add.result.temporary_password} />}
      {[add.error, update.error, remove.error].map((error, index) => error && <ErrorBox key={index} error={error} />)}
      <Loaded query={members} empty={(list) => list.data.length === 0}>
        {(list) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("signin.email")}</th>
                  <th scope="col">Nome / Name</th>
                  <th scope="col">{t("access.role")}</th>
                  <th scope="col">{t("env.label")}</th>
                  <th scope="col">{t("common.status")}</th>
                  <th scope="col">{t("common.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((member) => (
                  <tr key={member.id}>
                    <td>{member.email}</td>
                    <td>{member.display_name}</td>
                    <td>
                      <select
                        aria-label={`${t("access.role")} ${member.email}`}
                        value={member.role}
                        onChange={(e) => update.run(member.id, { role: (e.target as HTMLSelectElement).value as Schemas["StaffRole"] })}
                      >
                        <option value="viewer">viewer</option>
                        <option value="operator">operator</option>
                        <option value="owner">owner</option>
                      </select>
                    </td>
                    <td>{member.env ?? "test + live"}</td>
                    <td>{member.disabled ? t("webhooks.disabled") : t("webhooks.enabled")}</td>
                    <td>
                      <ConfirmButton
                        label={t("webhooks.delete")}
                        class="danger"
                        question={`${t("webhooks.delete")} ${member.email}?`}
                        onConfirm={() => remove.run(member.id)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

function Roles() {
  const roles = useQuery(() => call(api.GET("/v1/staff/roles")));
  return (
    <section aria-labelledby="roles" class="card">
      <h2 id="roles">{t("access.role")}</h2>
      <Loaded query={roles}>
        {(list) => (
          <dl class="facts">
            {list.data.map((role) => (
              <>
                <dt key={role.role}>{role.role}</dt>
                <dd>{role.permissions.join(", ")}</dd>
              </>
            ))}
          </dl>
        )}
      </Loaded>
    </section>
  );
}

function Audit() {
  const [action, setAction] = useState("");
  const [actor, setActor] = useState("");
  const [applied, setApplied] = useState({ action: "", actor: "" });
  const log = useQuery(
    () =>
      call(
        api.GET("/v1/audit_log", {
          params: { query: { limit: 100, ...(applied.action ? { action: applied.action } : {}), ...(applied.actor ? { actor: applied.actor } : {}) } },
        }),
      ),
    [applied.action, applied.actor],
  );
  const csv = `/v1/audit_log.csv?${new URLSearchParams({ ...(applied.action ? { action: applied.action } : {}), ...(applied.actor ? { actor: applied.actor } : {}) })}`;
  return (
    <section aria-labelledby="audit" class="card">
      <h2 id="audit">{t("access.audit")}</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ action: action.trim(), actor: actor.trim() });
        }}
      >
        <Field label={t("access.audit.action")}>
          <input value={action} placeholder="config.publish" onInput={(e) => setAction((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("access.audit.actor")}>
          <input value={actor} onInput={(e) => setActor((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit">{t("common.filter")}</button>
        <a href={csv} download>
          {t("access.audit.csv")}
        </a>
      </form>
      <Loaded query={log} empty={(list) => list.data.length === 0}>
        {(list) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("common.when")}</th>
                  <th scope="col">{t("access.audit.actor")}</th>
                  <th scope="col">{t("access.audit.action")}</th>
                  <th scope="col">{t("access.audit.summary")}</th>
                  <th scope="col">IP</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((entry) => (
                  <tr key={entry.id}>
                    <td>{formatDate(entry.created_at)}</td>
                    <td>
                      {entry.actor_type} <code>{entry.actor_id}</code>
                    </td>
                    <td>
                      <code>{entry.action}</code>
                    </td>
                    <td>{entry.summary}</td>
                    <td>{entry.ip}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
