import { useState } from "preact/hooks";
import { api, call } from "../api.js";
import { formatDate, formatNumber, t } from "../i18n.js";
import { can, useStudio } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, useAction, useQuery } from "../ui.js";

export function TestClock() {
  const { env } = useStudio();
  const clock = useQuery(() => (env === "test" ? call(api.GET("/v1/test_clock")) : Promise.resolve(null)));
  const [to, setTo] = useState("");
  const advance = useAction(async () => {
    const result = await call(api.POST("/v1/test_clock/advance", { body: { to: new Date(to).toISOString() } }));
    clock.reload();
    return result;
  });
  const reset = useAction(async () => {
    await call(api.DELETE("/v1/test_clock"));
    clock.reload();
    return true;
  });
  return (
    <Page title={t("clock.title")}>
      {env !== "test" ? (
        <p class="empty">{t("clock.liveonly")}</p>
      ) : (
        <>
          <Loaded query={clock}>
            {(data) =>
              data && (
                <p class="big" data-testid="clock-now">
                  {t("clock.now")}: <strong>{formatDate(data.now)}</strong> {data.frozen && <span class="badge">{t("clock.frozen")}</span>}
                </p>
              )
            }
          </Loaded>
          {can("test_clock.write") && (
            <>
              <form
                class="filters"
                onSubmit={(event) => {
                  event.preventDefault();
                  void advance.run();
                }}
              >
                <Field label={t("clock.advance")}>
                  <input type="datetime-local" required value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
                </Field>
                <button type="submit" class="primary" disabled={advance.pending}>
                  {t("clock.advance.submit")}
                </button>
              </form>
              <ConfirmButton label={t("clock.reset")} question={t("clock.reset.confirm")} onConfirm={() => reset.run()} />
            </>
          )}
          {advance.error && <ErrorBox error={advance.error} />}
          {reset.error && <ErrorBox error={reset.error} />}
          {advance.result && (
            <div role="status">
              <Notice>{t("clock.advanced", { steps: formatNumber(advance.result.steps), webhooks: formatNumber(advance.result.webhooks_queued) })}</Notice>
              <ul>
                {advance.result.tasks.map((task) => (
                  <li key={task.name}>
                    <code>{task.name}</code>: {formatNumber(task.runs)}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
    </Page>
  );
}
