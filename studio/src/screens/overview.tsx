import { useEffect, useRef } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call } from "../api.js";
import { formatNumber, t } from "../i18n.js";
import { can } from "../store.js";
import { Loaded, Page, useQuery } from "../ui.js";

const MINUTE = 60_000;

/** The server's 24-hour aggregates, the per-minute counts spread over every minute of the window for the chart. */
async function loadOverview() {
  const overview = await call(api.GET("/v1/overview"));
  const first = Math.floor(new Date(overview.from).getTime() / MINUTE) * MINUTE;
  const minutes = Array.from({ length: 24 * 60 }, (_, i) => first + i * MINUTE);
  const perMinute = minutes.map(() => 0);
  for (const bucket of overview.events_per_minute) {
    const index = Math.round((new Date(bucket.minute).getTime() - first) / MINUTE);
    if (index >= 0 && index < perMinute.length) perMinute[index] += bucket.events;
  }
  return { ...overview, minutes, perMinute };
}

export function Overview() {
  const query = useQuery(loadOverview);
  return (
    <Page
      title={t("overview.title")}
      actions={
        <button type="button" onClick={query.reload}>
          {t("common.refresh")}
        </button>
      }
    >
      <Loaded query={query}>
        {(data) => (
          <div class="overview">
            <section class="card" aria-labelledby="ov-events">
              <h2 id="ov-events">{t("overview.events")}</h2>
              <Chart x={data.minutes.map((m) => m / 1000)} events={data.perMinute} />
              <dl class="facts">
                <dt>{t("nav.events")}</dt>
                <dd data-testid="ov-events">{formatNumber(data.events_total)}</dd>
                <dt>{t("overview.effects")}</dt>
                <dd data-testid="ov-effects">{formatNumber(data.effects_granted)}</dd>
                <dt>{t("overview.rewards")}</dt>
                <dd data-testid="ov-rewards">{formatNumber(data.rewards_granted)}</dd>
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
              {can("deliveries.read") && <Link href="/deliveries">{t("nav.deliveries")}</Link>}
            </section>
            <section class="card" aria-labelledby="ov-webhooks">
              <h2 id="ov-webhooks">{t("overview.webhooks")}</h2>
              {data.webhook_endpoints.length === 0 ? (
                <p class="empty">{t("state.empty")}</p>
              ) : (
                <ul class="rates">
                  {data.webhook_endpoints.map((w) => {
                    const finished = w.succeeded + w.failed;
                    return (
                      <li key={w.endpoint_id} data-endpoint={w.endpoint_id}>
                        <Link href={`/webhooks/${w.endpoint_id}`}>{w.url}</Link>:{" "}
                        <strong>{w.success_rate === null ? t("common.none") : `${formatNumber(Math.round(100 * w.success_rate))}%`}</strong> (
                        {formatNumber(w.succeeded)}/{formatNumber(finished)}
                        {w.pending ? `, ${t("overview.pending", { count: formatNumber(w.pending) })}` : ""})
                        <meter min={0} max={Math.max(1, finished)} value={w.succeeded} aria-label={w.url} />
                      </li>
                    );
                  })}
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
function Chart({ x, events }: { x: number[]; events: number[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let destroy: (() => void) | undefined;
    let alive = true;
    import("../lazy/chart.js")
      .then(({ barChart }) => {
        if (!alive || !host.current) return;
        destroy = barChart(host.current, {
          title: "",
          x,
          width: Math.min(900, host.current.clientWidth || 600),
          series: [{ label: t("nav.events"), values: events, color: "#1d4ed8" }],
        });
      })
      // A chart that failed to load (a new deployment replaced its chunk) leaves the figures above it as they are.
      .catch(() => {});
    return () => {
      alive = false;
      destroy?.();
    };
  }, [x[0], events.join()]);
  return <div ref={host} class="chart" role="img" aria-label={`${t("overview.events")}: ${events.reduce((a, b) => a + b, 0)}`} />;
}
