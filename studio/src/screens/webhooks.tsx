import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call, type Schemas } from "../api.js";
import { formatDate, formatNumber, t } from "../i18n.js";
import { can, useStudio } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, SecretOnce, Status, useAction, useQuery } from "../ui.js";

type Selector = Schemas["WebhookEventSelector"];

const EVENTS: Selector[] = [
  "reward.*",
  "reward.delivery_requested",
  "reward.granted",
  "reward.delivered",
  "reward.delivery_failed",
  "participant.created",
  "level.up",
  "tier.changed",
  "checkin.completed",
  "mission.completed",
  "wheel.spun",
  "code.redeemed",
  "store.purchased",
  "cashback.credited",
  "referral.qualified",
  "message.requested",
  "tournament.finished",
];

/** Webhook endpoints of the chosen environment. */
export function Webhooks() {
  const { env } = useStudio();
  const query = useQuery(() => call(api.GET("/v1/webhook_endpoints", { params: { query: { limit: 100 } } })));
  return (
    <Page
      title={`${t("webhooks.title")} · ${t(env === "live" ? "env.live" : "env.test")}`}
      actions={
        <button type="button" onClick={query.reload}>
          {t("common.refresh")}
        </button>
      }
    >
      {can("webhooks.write") && <CreateEndpoint onCreated={query.reload} />}
      <Loaded query={query} empty={(list) => list.data.length === 0}>
        {(list) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">{t("webhooks.events")}</th>
                  <th scope="col">{t("common.status")}</th>
                  <th scope="col">{t("common.created")}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <td>
                      <Link href={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
                    </td>
                    <td>{endpoint.effective_events.join(", ")}</td>
                    <td>{endpoint.enabled ? t("webhooks.enabled") : t("webhooks.disabled")}</td>
                    <td>{formatDate(endpoint.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </Page>
  );
}

function EventChoice({ chosen, onChange }: { chosen: Selector[]; onChange: (next: Selector[]) => void }) {
  return (
    <fieldset class="choices">
      <legend>{t("webhooks.events")}</legend>
      <small class="muted">{t("webhooks.events.hint")}</small>
      <div class="grid">
        {EVENTS.map((name) => (
          <label key={name}>
            <input
              type="checkbox"
              name="events"
              value={name}
              checked={chosen.includes(name)}
              onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...chosen, name] : chosen.filter((x) => x !== name))}
            />
            <code>{name}</code>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function CreateEndpoint({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<Selector[]>([]);
  const create = useAction(async () => {
    const created = await call(
      api.POST("/v1/webhook_endpoints", { body: { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) } }),
    );
    onCreated();
    setUrl("");
    setDescription("");
    return created;
  });
  return (
    <section class="card" aria-labelledby="new-endpoint">
      <h2 id="new-endpoint">{t("webhooks.create")}</h2>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Field label={t("webhooks.url")}>
          <input
            name="url"
            type="url"
            required
            value={url}
            placeholder="https://example.com/clube/webhooks"
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={t("webhooks.description")}>
          <input name="description" maxLength={200} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
        </Field>
        <EventChoice chosen={events} onChange={setEvents} />
        <button type="submit" class="primary" disabled={create.pending}>
          {t("webhooks.create")}
        </button>
      </form>
      {create.error && <ErrorBox error={create.error} />}
      {create.result && (
        <>
          <Notice>
            {t("webhooks.created")} <Link href={`/webhooks/${create.result.id}`}>{create.result.url}</Link>
          </Notice>
          <SecretOnce label={t("webhooks.secret")} secret={create.result.secret} />
        </>
      )}
    </section>
  );
}

/** One endpoint: enable/disable, events, secret rotation, deletion, and its sendings with resend. */
export function WebhookDetail({ id }: { id: string }) {
  const endpoint = useQuery(() => call(api.GET("/v1/webhook_endpoints/{id}", { params: { path: { id } } })), [id]);
  const [status, setStatus] = useState<"" | "pending" | "succeeded" | "failed">("");
  const sendings = useQuery(
    () => call(api.GET("/v1/webhook_endpoints/{id}/sendings", { params: { path: { id }, query: { limit: 100, ...(status ? { status } : {}) } } })),
    [id, status],
  );
  const [events, setEvents] = useState<Selector[] | null>(null);
  const update = useAction(async (body: Schemas["WebhookEndpointUpdate"]) => {
    const updated = await call(api.POST("/v1/webhook_endpoints/{id}", { params: { path: { id } }, body }));
    endpoint.reload();
    sendings.reload();
    return updated;
  });
  const rotate = useAction(() => call(api.POST("/v1/webhook_endpoints/{id}/rotate_secret", { params: { path: { id } }, body: {} })));
  const remove = useAction(async () => {
    await call(api.DELETE("/v1/webhook_endpoints/{id}", { params: { path: { id } } }));
    history.pushState(null, "", "/studio/webhooks");
    dispatchEvent(new PopStateEvent("popstate"));
  });
  const resend = useAction(async (sending: string) => {
    const result = await call(api.POST("/v1/webhook_sendings/{id}/resend", { params: { path: { id: sending } } }));
    sendings.reload();
    return result;
  });
  const test = useAction(async () => {
    const queued = await call(api.POST("/v1/webhook_endpoints/{id}/test", { params: { path: { id } } }));
    sendings.reload();
    return queued;
  });
  const [shown, setShown] = useState<string | null>(null);
  const writable = can("webhooks.write");
  return (
    <Page title={t("webhooks.title")}>
      <Loaded query={endpoint}>
        {(data) => (
          <section class="card" aria-label={data.url}>
            <h2>
              <code>{data.url}</code>
            </h2>
            <dl class="facts">
              <dt>ID</dt>
              <dd>{data.id}</dd>
              <dt>{t("common.status")}</dt>
              <dd>{data.enabled ? t("webhooks.enabled") : t("webhooks.disabled")}</dd>
              <dt>{t("webhooks.events")}</dt>
              <dd>{data.effective_events.join(", ")}</dd>
            </dl>
            {writable && (
              <>
                <div class="row">
                  <button type="button" onClick={() => test.run()} disabled={test.pending || !data.enabled}>
                    {t("webhooks.test")}
                  </button>
                  <button type="button" onClick={() => update.run({ enabled: !data.enabled })} disabled={update.pending}>
                    {data.enabled ? t("webhooks.disable") : t("webhooks.enable")}
                  </button>
                  <ConfirmButton label={t("webhooks.rotate")} question={t("webhooks.rotate.confirm")} onConfirm={() => rotate.run()} />
                  <ConfirmButton label={t("webhooks.delete")} class="danger" question={t("webhooks.delete.confirm")} onConfirm={() => remove.run()} />
                </div>
                <form
                  class="stack"
                  onSubmit={(event) => {
                    event.preventDefault();
                    void update.run({ events: events ?? data.events });
                  }}
                >
                  <EventChoice chosen={events ?? data.events} onChange={setEvents} />
                  <button type="submit">{t("common.confirm")}</button>
                </form>
              </>
            )}
            {[update.error, rotate.error, remove.error, test.error].map((error, index) => error && <ErrorBox key={index} error={error} />)}
            {test.result && <Notice>{t("webhooks.test.queued", { id: test.result.event_id })}</Notice>}
            {rotate.result && <SecretOnce label={t("webhooks.secret")} secret={rotate.result.secret} />}
          </section>
        )}
      </Loaded>
      <h2>{t("webhooks.sendings")}</h2>
      <div class="filters">
        <Field label={t("common.status")}>
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as typeof status)}>
            <option value="">*</option>
            <option value="pending">pending</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </Field>
        <button type="button" onClick={sendings.reload}>
          {t("common.refresh")}
        </button>
      </div>
      {resend.error && <ErrorBox error={resend.error} />}
      {resend.result && <Notice>{t("webhooks.resent")}</Notice>}
      <Loaded query={sendings} empty={(list) => list.data.length === 0}>
        {(list) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">{t("common.type")}</th>
                  <th scope="col">{t("common.status")}</th>
                  <th scope="col">{t("webhooks.attempts")}</th>
                  <th scope="col">{t("webhooks.http")}</th>
                  <th scope="col">{t("webhooks.last_error")}</th>
                  <th scope="col">{t("webhooks.next")}</th>
                  <th scope="col">{t("common.when")}</th>
                  <th scope="col">{t("common.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((sending) => (
                  <tr key={sending.id} data-sending={sending.id}>
                    <td>
                      <code>{sending.id}</code>
                    </td>
                    <td>
                      <code>{sending.event_type}</code>
                    </td>
                    <td>
                      <Status value={sending.status} />
                    </td>
                    <td class="num">{formatNumber(sending.attempts)}</td>
                    <td class="num">{sending.last_status_code ?? t("common.none")}</td>
                    <td>{sending.last_error ?? t("common.none")}</td>
                    <td>{formatDate(sending.next_attempt_at)}</td>
                    <td>{formatDate(sending.updated_at)}</td>
                    <td class="row">
                      <button
                        type="button"
                        aria-label={`${t("webhooks.details")} ${sending.id}`}
                        aria-pressed={shown === sending.id}
                        onClick={() => setShown(shown === sending.id ? null : sending.id)}
                      >
                        {t("webhooks.details")}
                      </button>
                      {writable && (
                        <button
                          type="button"
                          aria-label={`${t("webhooks.resend")} ${sending.id}`}
                          onClick={() => resend.run(sending.id)}
                          disabled={resend.pending || sending.status === "pending"}
                        >
                          {t("webhooks.resend")}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      {shown && <SendingDetail id={shown} />}
    </Page>
  );
}

/** One sending: its attempts, newest first, and its body exactly as signed and sent, pretty-printed. */
function SendingDetail({ id }: { id: string }) {
  const query = useQuery(() => call(api.GET("/v1/webhook_sendings/{id}", { params: { path: { id } } })), [id]);
  // Below a long list of sendings: brought into view when a chosen sending has loaded (the page is tall enough by then).
  const section = useRef<HTMLElement>(null);
  const loaded = query.data !== undefined;
  useEffect(() => {
    if (loaded) section.current?.scrollIntoView?.({ block: "start" });
  }, [id, loaded]);
  return (
    <section class="card" aria-labelledby="sending-title" ref={section}>
      <h2 id="sending-title">{t("webhooks.detail.title", { id })}</h2>
      <Loaded query={query}>
        {(sending) => {
          let text = sending.body;
          try {
            text = JSON.stringify(JSON.parse(sending.body), null, 2);
          } catch {
            // Shown as stored when it is not JSON.
          }
          return (
            <>
              <AttemptLog attempts={sending.attempt_log} />
              <h3>{t("webhooks.payload")}</h3>
              <pre class="payload" data-testid="payload" tabIndex={0}>
                {text}
              </pre>
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

/** The attempt log as a table (the server keeps the latest few rounds). */
function AttemptLog({ attempts }: { attempts: Schemas["WebhookAttempt"][] }) {
  return (
    <>
      <h3 id="attempts-title">{t("webhooks.attempt_log")}</h3>
      {attempts.length === 0 ? (
        <p class="empty">{t("webhooks.attempt_log.empty")}</p>
      ) : (
        <div class="table-wrap">
          <table aria-labelledby="attempts-title" data-testid="attempt-log">
            <thead>
              <tr>
                <th scope="col">{t("webhooks.attempt.number")}</th>
                <th scope="col">{t("webhooks.attempt.started")}</th>
                <th scope="col">{t("webhooks.attempt.outcome")}</th>
                <th scope="col">{t("webhooks.http")}</th>
                <th scope="col">{t("webhooks.attempt.duration")}</th>
                <th scope="col">{t("webhooks.attempt.error")}</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((attempt) => (
                <tr key={attempt.number} data-attempt={attempt.number}>
                  <td class="num">
                    {formatNumber(attempt.number)}
                    {attempt.resend && <small class="muted"> · {t("webhooks.attempt.resend")}</small>}
                  </td>
                  <td>{formatDate(attempt.started_at)}</td>
                  <td>
                    <Status value={attempt.outcome} />
                  </td>
                  <td class="num">{attempt.http_status ?? t("common.none")}</td>
                  <td class="num">{t("webhooks.attempt.ms", { ms: formatNumber(attempt.duration_ms) })}</td>
                  <td>{attempt.error ?? t("common.none")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
