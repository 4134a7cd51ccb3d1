import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call, type Schemas } from "../api.js";
import { formatDate, formatNumber, t, tn } from "../i18n.js";
import { can } from "../store.js";
import { ErrorBox, Field, Loaded, Page, Status, useAction, useQuery } from "../ui.js";

type Entry = Schemas["EventLogEntry"];
type Effect = Schemas["Effect"];
type Trace = Schemas["EventTrace"];

/** Events, most recent first, filtered by type, participant and time on the server. */
export function Events() {
  const search = new URLSearchParams(location.search);
  const [type, setType] = useState(search.get("type") ?? "");
  const [participant, setParticipant] = useState(search.get("participant") ?? "");
  const [since, setSince] = useState(search.get("since") ?? "");
  const [until, setUntil] = useState(search.get("until") ?? "");
  const [applied, setApplied] = useState({ type, participant, since, until });
  // datetime-local is the member's local time; the API takes an instant.
  const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const query = useQuery(
    () =>
      call(
        api.GET("/v1/events", {
          params: {
            query: {
              limit: 100,
              ...(applied.type ? { type: applied.type } : {}),
              ...(applied.participant ? { participant: applied.participant } : {}),
              ...(applied.since ? { from: instant(applied.since) } : {}),
              ...(applied.until ? { to: instant(applied.until) } : {}),
            },
          },
        }),
      ),
    [applied.type, applied.participant, applied.since, applied.until],
  );
  return (
    <Page
      title={t("events.title")}
      actions={
        <button type="button" onClick={query.reload}>
          {t("common.refresh")}
        </button>
      }
    >
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ type: type.trim(), participant: participant.trim(), since, until });
          const next = new URLSearchParams({
            ...(type ? { type } : {}),
            ...(participant ? { participant } : {}),
            ...(since ? { since } : {}),
            ...(until ? { until } : {}),
          });
          history.replaceState(null, "", `${location.pathname}${next.size ? `?${next}` : ""}`);
        }}
      >
        <Field label={t("events.filter.type")}>
          <input name="type" value={type} placeholder="deposit.confirmed" onInput={(e) => setType((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("events.filter.participant")}>
          <input name="participant" value={participant} onInput={(e) => setParticipant((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("events.filter.since")}>
          <input name="since" type="datetime-local" value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("events.filter.until")}>
          <input name="until" type="datetime-local" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit">{t("common.filter")}</button>
      </form>
      <Loaded query={query} empty={(page) => page.data.length === 0}>
        {(page) => <EventTable entries={page.data} />}
      </Loaded>
      {can("events.test") && <TestEventForm />}
    </Page>
  );
}

export function EventTable({ entries }: { entries: Entry[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t("events.col.sent_id")}</th>
            <th scope="col">{t("common.type")}</th>
            <th scope="col">{t("common.participant")}</th>
            <th scope="col">{t("events.col.effects")}</th>
            <th scope="col">{t("events.col.duplicate")}</th>
            <th scope="col">{t("common.status")}</th>
            <th scope="col">{t("events.col.received")}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>
                <Link href={`/events/${entry.id}`}>{entry.event_id ?? entry.id}</Link>
              </td>
              <td>
                <code>{entry.type}</code>
              </td>
              <td>
                <Link href={`/participants/${encodeURIComponent(entry.participant)}`}>{entry.participant}</Link>
              </td>
              <td class="num">{formatNumber(entry.effects_count)}</td>
              <td>{entry.duplicate_of ? t("common.yes") : t("common.no")}</td>
              <td>
                <Status value={entry.status} />
              </td>
              <td>{formatDate(entry.received_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function EventDetail({ id }: { id: string }) {
  const query = useQuery(async () => {
    try {
      return await call(api.GET("/v1/events/{id}", { params: { path: { id } } }));
    } catch (err) {
      if ((err as { code?: string }).code === "not_found") return null;
      throw err;
    }
  }, [id]);
  return (
    <Page title={t("event.title", { id })}>
      <Loaded query={query}>
        {(entry) =>
          entry === null ? (
            <p class="empty">{t("event.notfound")}</p>
          ) : (
            <>
              <dl class="facts">
                <dt>{t("events.col.sent_id")}</dt>
                <dd>{entry.event_id ?? t("common.none")}</dd>
                <dt>{t("common.type")}</dt>
                <dd>
                  <code>{entry.type}</code>
                </dd>
                <dt>{t("common.participant")}</dt>
                <dd>
                  <Link href={`/participants/${encodeURIComponent(entry.participant)}`}>{entry.participant}</Link>
                </dd>
                <dt>{t("common.status")}</dt>
                <dd>
                  <Status value={entry.status} /> {entry.error}
                </dd>
                <dt>{t("events.col.effects")}</dt>
                <dd>{tn("events.effects", entry.effects_count)}</dd>
                <dt>{t("events.col.duplicate")}</dt>
                <dd>{entry.duplicate_of ? <Link href={`/events/${entry.duplicate_of}`}>{entry.duplicate_of}</Link> : t("common.no")}</dd>
                <dt>{t("events.col.received")}</dt>
                <dd>{formatDate(entry.received_at)}</dd>
              </dl>
              <h2>{t("event.effects")}</h2>
              <EffectList effects={entry.effects} />
              {Object.keys(entry.meta).length > 0 && (
                <>
                  <h2>{t("event.meta")}</h2>
                  <pre class="payload">{JSON.stringify(entry.meta, null, 2)}</pre>
                </>
              )}
              <h2>{t("event.trace")}</h2>
              {entry.trace ? <TraceView trace={entry.trace} /> : <p class="empty">{t("event.trace.none")}</p>}
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

/** One line per effect, with the rule (or mission) it came from. */
export function describeEffect(effect: Effect): { text: string; source: string } {
  const e = effect as Record<string, unknown> & { type: string };
  const source = String(e.rule_id ?? e.mission_id ?? e.campaign ?? "");
  switch (e.type) {
    case "xp_granted":
      return { text: `+${formatNumber(e.amount as number)} XP`, source };
    case "xp_debited":
      return { text: `−${formatNumber(e.amount as number)} XP`, source };
    case "currency_granted":
      return { text: `+${formatNumber(e.amount as number)} ${e.currency}`, source };
    case "currency_debited":
      return { text: `−${formatNumber(e.amount as number)} ${e.currency}`, source };
    case "reward_granted":
      return { text: `${e.reward_code}`, source };
    case "mission_progressed":
      return { text: `${e.mission_id}: ${e.progress}/${e.target}`, source };
    default:
      return { text: `${e.type} ${JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k !== "type" && k !== "rule_id")))}`, source };
  }
}

export function EffectList({ effects }: { effects: Effect[] }) {
  if (effects.length === 0) return <p class="empty">{tn("events.effects", 0)}</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t("common.type")}</th>
          <th scope="col">{t("participants.effect")}</th>
          <th scope="col">{t("participants.rule")}</th>
        </tr>
      </thead>
      <tbody>
        {effects.map((effect, index) => {
          const line = describeEffect(effect);
          return (
            <tr key={index}>
              <td>
                <code>{effect.type}</code>
              </td>
              <td>{line.text}</td>
              <td>
                <code>{line.source || t("common.none")}</code>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function TraceView({ trace }: { trace: Trace }) {
  return (
    <>
      {trace.warnings.map((warning) => (
        <p class="notice error" key={warning.code}>
          {warning.message}
        </p>
      ))}
      <ol class="trace">
        {trace.entries.map((entry) => (
          <li key={`${entry.kind}:${entry.id}`} class={entry.matched ? "matched" : "skipped"}>
            <span class="badge">{t(entry.kind === "rule" ? "trace.rule" : "trace.mission")}</span> <code>{entry.id}</code>{" "}
            <strong>{t(entry.matched ? "trace.matched" : "trace.skipped")}</strong>
            {entry.reason && (
              <span>
                {" "}
                — {entry.reason.message} {entry.reason.condition && <code>{entry.reason.condition}</code>}
              </span>
            )}
            {[...(entry.skipped_effects ?? []), ...(entry.refused_effects ?? [])].map((issue, index) => (
              <div key={index} class="muted">
                {issue.effect}: {issue.reason} {issue.detail}
              </div>
            ))}
          </li>
        ))}
      </ol>
    </>
  );
}

function TestEventForm() {
  const [participant, setParticipant] = useState("");
  const [type, setType] = useState("deposit.confirmed");
  const [amount, setAmount] = useState("");
  const [meta, setMeta] = useState("");
  const send = useAction(async () => {
    let parsedMeta: Record<string, unknown> | undefined;
    if (meta.trim()) {
      try {
        parsedMeta = JSON.parse(meta);
      } catch (err) {
        throw { code: "validation_failed", message: `meta: ${(err as Error).message}` };
      }
    }
    return call(
      api.POST("/v1/events/test", {
        body: {
          participant: participant.trim(),
          type: type.trim(),
          ...(amount.trim() ? { amount: amount.trim() } : {}),
          ...(parsedMeta ? { meta: parsedMeta as never } : {}),
        },
      }),
    );
  });
  return (
    <section aria-labelledby="test-event" class="card">
      <h2 id="test-event">{t("events.test.title")}</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void send.run();
        }}
      >
        <Field label={t("common.participant")}>
          <input name="test-participant" required value={participant} onInput={(e) => setParticipant((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("common.type")}>
          <input name="test-type" required value={type} onInput={(e) => setType((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("events.test.amount")}>
          <input name="test-amount" inputMode="decimal" value={amount} placeholder="100.00" onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("events.test.meta")}>
          <input name="test-meta" value={meta} placeholder='{"game": "slots"}' onInput={(e) => setMeta((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary" disabled={send.pending}>
          {t("events.test.submit")}
        </button>
      </form>
      {send.error && <ErrorBox error={send.error} />}
      {send.result && (
        <div class="result" role="status" aria-labelledby="test-result">
          <h3 id="test-result">{t("events.test.result")}</h3>
          <p>
            <Link href={`/events/${send.result.event_id}`}>{send.result.event_id}</Link> — {tn("events.effects", send.result.effects.length)}
          </p>
          <EffectList effects={send.result.effects} />
          {send.result.trace && <TraceView trace={send.result.trace} />}
        </div>
      )}
    </section>
  );
}
