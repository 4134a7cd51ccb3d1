import { useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { api, call, type Schemas } from "../api.js";
import { formatDate, formatNumber, t } from "../i18n.js";
import { can } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Page, Status, useAction, useQuery } from "../ui.js";
import { TraceView } from "./events.js";

export function Participants() {
  const [, navigate] = useLocation();
  const [externalId, setExternalId] = useState("");
  return (
    <Page title={t("participants.title")}>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          if (externalId.trim()) navigate(`/participants/${encodeURIComponent(externalId.trim())}`);
        }}
      >
        <Field label={t("participants.find")}>
          <input name="external_id" required value={externalId} onInput={(e) => setExternalId((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary">
          {t("common.search")}
        </button>
      </form>
    </Page>
  );
}

/**
 * One participant: profile, balances, the lines of their events with the rule
 * behind each (from the events' traces), deliveries, wheel spins; rename or
 * merge after a dry run; the widget as they see it.
 */
export function ParticipantDetail({ externalId }: { externalId: string }) {
  const profile = useQuery(() => call(api.GET("/v1/participants/{external_id}", { params: { path: { external_id: externalId } } })), [externalId]);
  const events = useQuery(() => call(api.GET("/v1/events", { params: { query: { participant: externalId, limit: 100 } } })), [externalId]);
  const ledger = useQuery(() => loadLedger(externalId), [externalId]);
  const deliveries = useQuery(() => call(api.GET("/v1/deliveries", { params: { query: { participant: externalId, limit: 100 } } })), [externalId]);
  const spins = useQuery(() => call(api.GET("/v1/participants/{external_id}/wheel_spins", { params: { path: { external_id: externalId } } })), [externalId]);
  const seeAs = useAction(async () => {
    // The tab opens first (a popup opened after an await is blocked), then receives the token in its fragment, never sent to a server.
    const tab = window.open("about:blank", "_blank");
    const issued = await call(api.POST("/v1/participants/{external_id}/token", { params: { path: { external_id: externalId } }, body: { ttl_seconds: 600 } }));
    const url = `/studio/preview.html#token=${encodeURIComponent(issued.token)}`;
    if (tab) tab.location.href = url;
    else location.assign(url);
    return issued;
  });
  return (
    <Page
      title={`${t("participants.title")}: ${externalId}`}
      actions={
        can("participants.tokens") && (
          <button type="button" onClick={() => seeAs.run()}>
            {t("participants.see_as")}
          </button>
        )
      }
    >
      {seeAs.error && <ErrorBox error={seeAs.error} />}
      <Loaded query={profile}>
        {(p) => (
          <section class="card" aria-labelledby="profile">
            <h2 id="profile">{t("participants.profile")}</h2>
            <dl class="facts">
              <dt>ID</dt>
              <dd>{p.id}</dd>
              <dt>{t("participants.find")}</dt>
              <dd>{p.external_id}</dd>
              <dt>{t("participants.name")}</dt>
              <dd>{p.display_name ?? t("common.none")}</dd>
              <dt>XP</dt>
              <dd>{formatNumber(p.xp)}</dd>
              <dt>{t("participants.level")}</dt>
              <dd>
                {p.level} / {p.max_level} ({p.percent}%)
              </dd>
              <dt>{t("participants.tier")}</dt>
              <dd>{p.tier.name}</dd>
            </dl>
            <h3>{t("participants.balances")}</h3>
            <ul class="balances">
              {p.currencies.map((currency) => (
                <li key={currency.code}>
                  {currency.name}: <strong>{formatNumber(currency.balance)}</strong> <code>{currency.code}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
      </Loaded>
      <section aria-labelledby="ledger">
        <h2 id="ledger">{t("participants.ledger")}</h2>
        <Loaded query={ledger} empty={(data) => data.lines.length === 0}>
          {(data) => <LedgerTable lines={data.lines} decimals={data.decimals} />}
        </Loaded>
      </section>
      <section aria-labelledby="p-events">
        <h2 id="p-events">{t("participants.events")}</h2>
        <Loaded query={events} empty={(list) => list.data.length === 0}>
          {(list) => <EventLines entries={list.data} />}
        </Loaded>
      </section>
      <section aria-labelledby="p-deliveries">
        <h2 id="p-deliveries">{t("deliveries.title")}</h2>
        <Loaded query={deliveries}>
          {(list) => {
            const mine = list.deliveries;
            return mine.length === 0 ? (
              <p class="empty">{t("state.empty")}</p>
            ) : (
              <ul>
                {mine.map((delivery) => (
                  <li key={delivery.id}>
                    <code>{delivery.reward_code}</code> <Status value={delivery.status} /> {delivery.kind} — {formatDate(delivery.created_at)}
                  </li>
                ))}
              </ul>
            );
          }}
        </Loaded>
      </section>
      <section aria-labelledby="p-spins">
        <h2 id="p-spins">Wheel</h2>
        <Loaded query={spins} empty={(list) => list.data.length === 0}>
          {(list) => (
            <ul>
              {list.data.map((spin) => (
                <li key={spin.spin_id}>
                  {formatDate(spin.spun_at)} — <code>{spin.slice_id}</code> (nonce {spin.nonce})
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </section>
      {can("participants.write") && <Rename externalId={externalId} />}
    </Page>
  );
}

/** The ledger's latest lines and each currency's decimals (from the published configuration, when the role may read it). */
async function loadLedger(externalId: string) {
  const [page, config] = await Promise.all([
    call(api.GET("/v1/participants/{external_id}/ledger", { params: { path: { external_id: externalId }, query: { limit: 100 } } })),
    can("config.read") ? call(api.GET("/v1/config")).catch(() => null) : Promise.resolve(null),
  ]);
  const decimals = new Map<string, number>();
  for (const currency of (config?.config as { currencies?: { code: string; decimals?: number }[] } | undefined)?.currencies ?? [])
    decimals.set(currency.code, currency.decimals ?? 0);
  return { lines: page.data, decimals };
}

/** Minor units as an exact decimal string for the unit's decimals (no floating point on money), formatted for the locale. */
export function formatMinor(minor: number, decimals: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, "0");
  const exact = decimals > 0 ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  const text = new Intl.NumberFormat(document.documentElement.lang || "en", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(
    exact as unknown as number,
  );
  return negative ? `−${text}` : `+${text}`;
}

/** Every XP and currency change, with the rule (or the reason) behind it and the event that caused it. */
function LedgerTable({ lines, decimals }: { lines: Schemas["LedgerLine"][]; decimals: Map<string, number> }) {
  return (
    <div class="table-wrap">
      <table class="ledger">
        <thead>
          <tr>
            <th scope="col">{t("common.when")}</th>
            <th scope="col">{t("participants.unit")}</th>
            <th scope="col">{t("participants.change")}</th>
            <th scope="col">{t("participants.balance_after")}</th>
            <th scope="col">{t("participants.rule")}</th>
            <th scope="col">{t("participants.reason")}</th>
            <th scope="col">{t("participants.event")}</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => {
            const places = line.unit === "xp" ? 0 : (decimals.get(line.unit) ?? 0);
            return (
              <tr key={line.id} data-line={line.id}>
                <td>{formatDate(line.created_at)}</td>
                <td>
                  <code>{line.unit === "xp" ? "XP" : line.unit}</code>
                </td>
                <td class="num">{formatMinor(line.amount_minor, places)}</td>
                <td class="num">{formatMinor(line.balance_after_minor, places).replace(/^\+/, "")}</td>
                <td>{line.rule_id ? <code class="rule">{line.rule_id}</code> : t("common.none")}</td>
                <td>
                  <code>{line.reason}</code>
                </td>
                <td>{line.event_id ? <Link href={`/events/${line.event_id}`}>{line.event_id}</Link> : t("common.none")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Each event of the participant with the rules that matched (the trace's matched entries, while kept). */
function EventLines({ entries }: { entries: Schemas["EventLogEntry"][] }) {
  return (
    <div class="table-wrap">
      <table class="event-lines">
        <thead>
          <tr>
            <th scope="col">{t("events.col.received")}</th>
            <th scope="col">{t("common.type")}</th>
            <th scope="col">{t("events.col.effects")}</th>
            <th scope="col">{t("participants.rule")}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const matched = entry.trace?.entries.filter((line) => line.matched) ?? [];
            return (
              <tr key={entry.id}>
                <td>
                  <Link href={`/events/${entry.id}`}>{formatDate(entry.received_at)}</Link>
                </td>
                <td>
                  <code>{entry.type}</code>
                </td>
                <td class="num">{formatNumber(entry.effects_count)}</td>
                <td>
                  {matched.length ? (
                    matched.map((line) => (
                      <code class="rule" key={line.id}>
                        {line.id}
                      </code>
                    ))
                  ) : entry.trace ? (
                    <details>
                      <summary>{t("trace.skipped")}</summary>
                      <TraceView trace={entry.trace} />
                    </details>
                  ) : (
                    t("common.none")
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Rename({ externalId }: { externalId: string }) {
  const [, navigate] = useLocation();
  const [to, setTo] = useState("");
  const [merge, setMerge] = useState(false);
  const dry = useAction(() =>
    call(
      api.POST("/v1/participants/{external_id}/rename", {
        params: { path: { external_id: externalId } },
        body: { new_external_id: to.trim(), merge, dry_run: true },
      }),
    ),
  );
  const apply = useAction(async () => {
    const report = await call(
      api.POST("/v1/participants/{external_id}/rename", {
        params: { path: { external_id: externalId } },
        body: { new_external_id: to.trim(), merge, dry_run: false },
      }),
    );
    navigate(`/participants/${encodeURIComponent(report.to)}`);
    return report;
  });
  return (
    <section class="card" aria-labelledby="rename">
      <h2 id="rename">{t("participants.rename")}</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void dry.run();
        }}
      >
        <Field label={t("participants.rename.to")}>
          <input
            name="new_external_id"
            required
            value={to}
            onInput={(e) => {
              setTo((e.target as HTMLInputElement).value);
              dry.setResult(undefined);
            }}
          />
        </Field>
        <label class="check">
          <input
            type="checkbox"
            checked={merge}
            onChange={(e) => {
              setMerge((e.target as HTMLInputElement).checked);
              dry.setResult(undefined);
            }}
          />
          {t("participants.rename.merge")}
        </label>
        <button type="submit">{t("participants.rename.dry")}</button>
      </form>
      {dry.error && <ErrorBox error={dry.error} />}
      {apply.error && <ErrorBox error={apply.error} />}
      {dry.result && (
        <div role="status">
          <h3>{t("participants.rename.report")}</h3>
          <pre class="json">{JSON.stringify(dry.result, null, 2)}</pre>
          {/* The real rename only after its dry run was read. */}
          <ConfirmButton label={t("participants.rename.apply")} class="danger" question={`${externalId} → ${dry.result.to}`} onConfirm={() => apply.run()} />
        </div>
      )}
    </section>
  );
}
