import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api.js";
import { formatDate, t } from "../i18n.js";
import { can } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, Status, useAction, useQuery } from "../ui.js";

type Tab = "pending" | "failed" | "overdue" | "delivered";
const OVERDUE_MS = 48 * 3_600_000;

export function Deliveries() {
  const [tab, setTab] = useState<Tab>("pending");
  const status = tab === "overdue" ? "pending" : tab;
  const query = useQuery(() => call(api.GET("/v1/deliveries", { params: { query: { status, limit: 100 } } })), [status]);
  const notifications = useQuery(() => call(api.GET("/v1/staff/notifications", { params: { query: { limit: 50 } } })));
  const markRead = useAction(async (id: string) => {
    await call(api.POST("/v1/staff/notifications/{id}/read", { params: { path: { id } } }));
    notifications.reload();
  });
  const tabs: { id: Tab; label: string }[] = [
    { id: "pending", label: t("deliveries.pending") },
    { id: "overdue", label: t("deliveries.overdue") },
    { id: "failed", label: t("deliveries.failed") },
    { id: "delivered", label: t("deliveries.delivered") },
  ];
  return (
    <Page
      title={t("deliveries.title")}
      actions={
        <button type="button" onClick={query.reload}>
          {t("common.refresh")}
        </button>
      }
    >
      <div class="tabs" role="group" aria-label={t("common.filter")}>
        {tabs.map((item) => (
          <button key={item.id} type="button" aria-pressed={tab === item.id} onClick={() => setTab(item.id)}>
            {item.label}
          </button>
        ))}
      </div>
      <Loaded query={query}>
        {(list) => {
          const rows = tab === "overdue" ? list.deliveries.filter((d) => Date.now() - new Date(d.created_at).getTime() > OVERDUE_MS) : list.deliveries;
          return rows.length === 0 ? <p class="empty">{t("state.empty")}</p> : <DeliveryTable rows={rows} reload={query.reload} />;
        }}
      </Loaded>
      <section aria-labelledby="notifications">
        <h2 id="notifications">{t("deliveries.notifications")}</h2>
        {markRead.error && <ErrorBox error={markRead.error} />}
        <Loaded query={notifications} empty={(list) => list.data.length === 0}>
          {(list) => (
            <ul class="notifications">
              {list.data.map((n) => (
                <li key={n.id} class={n.read_at ? "read" : "unread"}>
                  <Status value={n.kind} /> {n.message} <small class="muted">{formatDate(n.created_at)}</small>{" "}
                  {!n.read_at && (
                    <button type="button" onClick={() => markRead.run(n.id)}>
                      {t("deliveries.markread")}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </section>
    </Page>
  );
}

function DeliveryTable({ rows, reload }: { rows: Schemas["Delivery"][]; reload: () => void }) {
  const writable = can("deliveries.fulfil");
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">{t("deliveries.reward")}</th>
            <th scope="col">{t("deliveries.kind")}</th>
            <th scope="col">{t("common.status")}</th>
            <th scope="col">{t("common.created")}</th>
            <th scope="col">{t("common.note")}</th>
            {writable && <th scope="col">{t("common.actions")}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <td>
                <code>{delivery.id}</code>
              </td>
              <td>
                <code>{delivery.reward_code}</code>
              </td>
              <td>{delivery.kind}</td>
              <td>
                <Status value={delivery.status} />
              </td>
              <td>{formatDate(delivery.created_at)}</td>
              <td>{delivery.note ?? delivery.fail_reason ?? t("common.none")}</td>
              {writable && <td>{delivery.status === "pending" && <Settle delivery={delivery} done={reload} />}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Confirm (with an optional note) or fail (with the reason) one pending delivery. */
function Settle({ delivery, done }: { delivery: Schemas["Delivery"]; done: () => void }) {
  const [text, setText] = useState("");
  const confirm = useAction(async () => {
    await call(api.POST("/v1/deliveries/{id}/confirm", { params: { path: { id: delivery.id } }, body: text.trim() ? { note: text.trim() } : {} }));
    done();
    return true;
  });
  const fail = useAction(async () => {
    await call(api.POST("/v1/deliveries/{id}/fail", { params: { path: { id: delivery.id } }, body: { reason: text.trim() } }));
    done();
    return true;
  });
  return (
    <div class="settle">
      <Field label={`${t("common.note")} / ${t("common.reason")}`}>
        <input value={text} maxLength={500} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </Field>
      <div class="row">
        <button type="button" class="primary" disabled={confirm.pending} onClick={() => confirm.run()}>
          {t("deliveries.confirm")}
        </button>
        <ConfirmButton
          label={t("deliveries.fail")}
          class="danger"
          disabled={fail.pending || !text.trim()}
          question={`${t("deliveries.fail")}: ${delivery.reward_code}`}
          onConfirm={() => fail.run()}
        />
      </div>
      {confirm.result && <Notice>{t("deliveries.confirmed")}</Notice>}
      {(confirm.error || fail.error) && <ErrorBox error={(confirm.error || fail.error)!} />}
    </div>
  );
}
