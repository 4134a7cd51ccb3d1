import { useEffect, useRef } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call } from "../api.js";
import { formatNumber, t } from "../i18n.js";
import { can } from "../store.js";
import { Loaded, Page, useQuery } from "../ui.js";

const HOUR = 3_600_000;

/** Figures of the last 24 hours from the lists the contract offers (the latest events, deliveries, sendings). */
async function loadOverview() {
  const since = Date.now() - 24 * HOUR;
  const [events, pending, failed, endpoints] = await Promise.all([
    can("events.read") ? call(api.GET("/v1/events", { params: { query: { limit: 100 } } })) : Promise.resolve({ data: [], has_more: false }),
    can("deliveries.read") ? call(api.GET("/v1/deliveries", { params: { query: { status: "pending", limit: 100 } } })) : Promise.resolve({ deliveries: [], has_more: false }),
    can("deliveries.read") ? call(api.GET("/v1/deliveries", { params: { query: { status: "failed", limit: 100 } } })) : Promise.resolve({ deliveries: [], has_more: false }),
    can("webhooks.read") ? call(api.GET("/v1/webhook_endpoints", { params: { query: { limit: 20 } } })) : Promise.resolve({ data: [], has_more: false }),
  ]);
  const hours = Array.from({ length: 24 }, (_, i) => Math.floor((since + (i + 1) * HOUR) / HOUR) * HOUR);
  const perHour = hours.map(() => 0);
  const effectsPerHour = hours.map(() => 0);
  for (const event of events.data) {
    const at = new Date(event.received_at).getTime();
    const index = hours.findIndex((hour) => at < hour + HOUR && at >= hour);
    if (index >= 0) {
      perHour[index]++;
      effectsPerHour[index] += event.effects_count;
    }
  }
  const webhooks = await Promise.all(
    endpoints.data.map(async (endpoint) => {
      const sendings = await call(api.GET("/v1/webhook_endpoints/{id}/sendings", { params: { path: { id: endpoint.id }, query: { limit: 100 } } }));
      const settled = sendings.data.filter((s) => s.status !== "pending");
      const ok = settled.filter((s) => s.status === "succeeded").length;
      return { id: endpoint.id, url: endpoint.url, total: settled.length, ok };
    }),
  );
  const overdue = pending.deliveries.filter((d) => Date.now() - new Date(d.created_at).getTime() > 48 * HOUR).length;
  return {
    hours,
    perHour,
    effectsPerHour,
    events: perHour.reduce((a, b) => a + b, 0),
    effects: effectsPerHour.reduce((a, b) => a + b, 0),
    deliveries: { pending: pending.deliveries.length, failed: failed.deliveries.length, overdue },
    webhooks,
  };
}

export function Overview() {
  const query = useQuery(loadOverview);
  return (
    <Page title={t("overview.title")} actions={<button type="button" onClick={query.reload}>{t("common.refresh")}</button>}>
      <Loaded query={query}>
        {(data) => (
          <div class="overview">
            <section class="card" aria-labelledby="ov-events">
              <h2 id="ov-events">{t("overview.events")}</h2>
              <Chart x={data.hours.map((h) => h / 1000)} events={data.perHour} effects={data.effectsPerHour} />
              <dl class="facts">
                <dt>{t("nav.events")}</dt>
                <dd data-testid="ov-events">{formatNumber(data.events)}</dd>
                <dt>{t("events.col.effects")}</dt>
                <dd>{formatNumber(data.effects)}</dd>
              </dl>
            </section>
            <section class="card" aria-labelledby="ov-deliveries">
              <h2 id="ov-deliveries">{t("overview.deliveries")}</h2>
              <dl class="facts">
                <dt>{t("deliveries.pending")}</dt>
                <dd>{formatNumber(data.deliveries.pending)}</dd>
                <dt>{t("deliveries.failed")}</dt>
                <dd>{formatNumber(data.deliveries.failed)}</dd>
                <dt>{t("deliveries.overdue")}</dt>
                <dd>{formatNumber(data.deliveries.overdue)}</dd>
              </dl>
              <Link href="/deliveries">{t("nav.deliveries")}</Link>
            </section>
            <section class="card" aria-labelledby="ov-webhooks">
              <h2 id="ov-webhooks">{t("overview.webhooks")}</h2>
              {data.webhooks.length === 0 ? (
                <p class="empty">{t("state.empty")}</p>
              ) : (
                <ul class="rates">
                  {data.webhooks.map((w) => (
                    <li key={w.id}>
                      <Link href={`/webhooks/${w.id}`}>{w.url}</Link>: <strong>{w.total ? `${formatNumber(Math.round((100 * w.ok) / w.total))}%` : t("common.none")}</strong> ({formatNumber(w.ok)}/{formatNumber(w.total)})
                      <meter min={0} max={Math.max(1, w.total)} value={w.ok} aria-label={w.url} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        )}
      </Loaded>
    </Page>
  );
}

/** The chart library loads only here, after the numbers are on screen. */
function Chart({ x, events, effects }: { x: number[]; events: number[]; effects: number[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let destroy: (() => void) | undefined;
    let alive = true;
    import("../lazy/chart.js").then(({ barChart }) => {
      if (!alive || !host.current) return;
      destroy = barChart(host.current, {
        title: "",
        x,
        width: Math.min(900, host.current.clientWidth || 600),
        series: [
          { label: t("nav.events"), values: events, color: "#1d4ed8" },
          { label: t("events.col.effects"), values: effects, color: "#047857" },
        ],
      });
    });
    return () => {
      alive = false;
      destroy?.();
    };
  }, [x.join(), events.join(), effects.join()]);
  return <div ref={host} class="chart" role="img" aria-label={`${t("overview.events")}: ${events.reduce((a, b) => a + b, 0)}`} />;
}
