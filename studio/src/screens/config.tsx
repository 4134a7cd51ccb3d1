import { useEffect, useRef, useState } from "preact/hooks";
import { api, call, type ApiError, type Schemas } from "../api.js";
import { formatDate, formatNumber, t, tn } from "../i18n.js";
import { can } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, Status, useAction, useQuery } from "../ui.js";
import type { Editor, Problem } from "../lazy/editor.js";

type EditorModule = typeof import("../lazy/editor.js");

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Loads the draft (or, with none, the published configuration) and the published one for the diff. */
async function loadConfig(): Promise<{ published: unknown; draft: Draft | null }> {
  const published = await call(api.GET("/v1/config"));
  const draft = await api.GET("/v1/config/draft");
  if (draft.error && draft.response.status !== 404) throw (draft.error as Schemas["ErrorBody"]).error;
  return { published: published.config, draft: draft.data ? { version: draft.data.version, config: draft.data.config } : null };
}

/** The configuration is edited as JSON text: the screen needs only its version and content. */
interface Draft {
  version: number;
  config: unknown;
}

export function Configuration() {
  const config = useQuery(loadConfig);
  const versions = useQuery(() => call(api.GET("/v1/config/versions", { params: { query: { limit: 50 } } })));
  return (
    <Page title={t("config.title")}>
      <Loaded query={config}>
        {(data) => <DraftEditor published={data.published} draft={data.draft} onChanged={() => (config.reload(), versions.reload())} />}
      </Loaded>
      <section aria-labelledby="versions">
        <h2 id="versions">{t("config.versions")}</h2>
        <Loaded query={versions} empty={(list) => list.data.length === 0}>
          {(list) => <Versions list={list.data} onChanged={() => (config.reload(), versions.reload())} />}
        </Loaded>
      </section>
    </Page>
  );
}

function DraftEditor({ published, draft, onChanged }: { published: unknown; draft: Draft | null; onChanged: () => void }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  const [module, setModule] = useState<EditorModule | null>(null);
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const [text, setText] = useState(pretty(draft?.config ?? published));
  const [problems, setProblems] = useState<Problem[]>([]);
  const [savedVersion, setSavedVersion] = useState<number | null>(draft?.version ?? null);
  // What the saved draft was made from: publishing is offered only while the editor still shows it.
  const [savedText, setSavedText] = useState<string | null>(draft ? pretty(draft.config) : null);
  const writable = can("config.write");

  useEffect(() => {
    let alive = true;
    import("../lazy/editor.js").then(
      (loaded) => {
        if (!alive || !host.current) return;
        setModule(loaded);
        editor.current = loaded.createEditor(host.current, text, {
          label: t("config.editor"),
          readOnly: !writable,
          onChange: setText,
          onProblems: setProblems,
        });
      },
      (err) => setLoadError({ code: "internal_error", message: String(err) } as ApiError),
    );
    return () => {
      alive = false;
      editor.current?.destroy();
    };
  }, []);

  const save = useAction(async () => {
    let body: unknown;
    try {
      body = JSON.parse(editor.current?.text() ?? text);
    } catch (err) {
      throw { code: "validation_failed", message: (err as Error).message } as ApiError;
    }
    // The server checks the whole text (422 with every problem); the editor's linter already showed them.
    const saved = await call(api.PUT("/v1/config/draft", { body: body as never }));
    setSavedVersion(saved.version);
    setSavedText(editor.current?.text() ?? text);
    return saved;
  });
  const publish = useAction(async (version: number) => {
    const result = await call(api.POST("/v1/config/publish", { body: { version } }));
    onChanged();
    return result;
  });

  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {}
  const diff = module && parsed !== undefined ? module.diffLines(pretty(published), pretty(parsed)) : null;
  const dirty = text !== savedText;

  return (
    <>
      <section aria-labelledby="draft" class="card">
        <h2 id="draft">
          {t("config.draft")}
          {savedVersion !== null && ` · ${t("config.version")} ${savedVersion}`}
        </h2>
        {loadError && <ErrorBox error={loadError} />}
        {!module && !loadError && <p role="status">{t("state.loading")}</p>}
        <div ref={host} class="editor" />
        <div class="problems" aria-live="polite">
          <h3>{problems.length ? tn("config.problems", problems.length) : t("config.noproblems")}</h3>
          {problems.length > 0 && (
            <ul>
              {problems.map((problem, index) => (
                <li key={index}>
                  <button type="button" class="link" onClick={() => editor.current?.reveal(problem.from)}>
                    <code>{problem.path || "(root)"}</code>
                  </button>{" "}
                  {problem.message}
                </li>
              ))}
            </ul>
          )}
        </div>
        {writable && (
          <div class="row">
            <button type="button" class="primary" disabled={save.pending || parsed === undefined} onClick={() => save.run()}>
              {t("config.save")}
            </button>
            {can("config.publish") && savedVersion !== null && !dirty && (
              <ConfirmButton
                label={t("config.publish")}
                question={t("config.publish.confirm", { version: savedVersion })}
                onConfirm={() => publish.run(savedVersion)}
              />
            )}
          </div>
        )}
        {save.error && <ErrorBox error={save.error} />}
        {save.result && <Notice>{t("config.saved", { version: save.result.version })}</Notice>}
        {publish.error && <ErrorBox error={publish.error} />}
        {publish.result && <Notice>{t("config.published", { version: publish.result.version })}</Notice>}
      </section>
      <section aria-labelledby="diff" class="card">
        <h2 id="diff">{t("config.diff")}</h2>
        {diff === null ? null : diff.every((line) => line.kind === " ") || diff.length === 0 ? (
          <p class="empty">{t("config.diff.none")}</p>
        ) : (
          <pre class="diff" data-testid="diff">
            {diff.map((line, index) =>
              line.kind === "…" ? (
                <div key={index} class="fold">
                  ⋯ {line.text}
                </div>
              ) : (
                <div key={index} class={line.kind === "+" ? "add" : line.kind === "-" ? "del" : ""}>
                  {line.kind} {line.text}
                </div>
              ),
            )}
          </pre>
        )}
      </section>
      {writable && savedVersion !== null && <Backtest version={savedVersion} />}
    </>
  );
}

const isoLocal = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

function Backtest({ version }: { version: number }) {
  const [from, setFrom] = useState(() => isoLocal(new Date(Date.now() - 7 * 86_400_000)));
  const [to, setTo] = useState(() => isoLocal(new Date(Date.now() + 60_000)));
  const [progress, setProgress] = useState<Schemas["BacktestJob"] | null>(null);
  const run = useAction(async () => {
    setProgress(null);
    const started = await api.POST("/v1/config/versions/{version}/backtest", {
      params: { path: { version } },
      body: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    });
    if (started.error || !started.data) throw (started.error as Schemas["ErrorBody"]).error;
    let answer = started.data;
    // A long period runs as a job: poll it until it is done.
    while ("status" in answer) {
      setProgress(answer);
      if (answer.status === "failed") throw { code: "internal_error", message: answer.error ?? "failed" } as ApiError;
      if (answer.status === "done" && answer.result) return answer.result;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      answer = await call(api.GET("/v1/config/backtests/{id}", { params: { path: { id: answer.id } } }));
    }
    return answer;
  });
  const result = run.result;
  return (
    <section aria-labelledby="backtest" class="card">
      <h2 id="backtest">{t("config.backtest")}</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void run.run();
        }}
      >
        <Field label={t("config.backtest.from")}>
          <input type="datetime-local" required value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("config.backtest.to")}>
          <input type="datetime-local" required value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit" disabled={run.pending}>
          {t("config.backtest.run")}
        </button>
      </form>
      {run.pending && progress && <p role="status">{t("config.backtest.running", { done: progress.events_done, total: progress.events_total })}</p>}
      {run.error && <ErrorBox error={run.error} />}
      {result && (
        <div class="table-wrap" role="status">
          <p>
            {t("config.version")} {result.version}: {formatNumber(result.events)} events, {formatNumber(result.participants)} participants
          </p>
          <table data-testid="backtest">
            <thead>
              <tr>
                <th scope="col">{t("config.backtest.source")}</th>
                <th scope="col">runs (draft)</th>
                <th scope="col">runs (published)</th>
                <th scope="col">Δ runs</th>
                <th scope="col">XP (draft)</th>
                <th scope="col">XP (published)</th>
                <th scope="col">Δ XP</th>
                <th scope="col">Δ rewards</th>
              </tr>
            </thead>
            <tbody>
              {result.sources.map((source) => (
                <tr key={source.source}>
                  <th scope="row">
                    <code>{source.source}</code>
                  </th>
                  <td class="num">{formatNumber(source.draft.runs)}</td>
                  <td class="num">{formatNumber(source.published.runs)}</td>
                  <td class="num">{formatNumber(source.difference.runs)}</td>
                  <td class="num">{formatNumber(source.draft.xp)}</td>
                  <td class="num">{formatNumber(source.published.xp)}</td>
                  <td class="num">{formatNumber(source.difference.xp)}</td>
                  <td class="num">{formatNumber(source.difference.rewards)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Versions({ list, onChanged }: { list: Schemas["ConfigVersionSummary"][]; onChanged: () => void }) {
  // A rollback saves the earlier version's configuration as a new draft and publishes it: the history only grows.
  const rollback = useAction(async (version: number) => {
    const earlier = await call(api.GET("/v1/config/versions/{version}", { params: { path: { version } } }));
    const draft = await call(api.PUT("/v1/config/draft", { body: earlier.config }));
    const result = await call(api.POST("/v1/config/publish", { body: { version: draft.version } }));
    onChanged();
    return result;
  });
  return (
    <>
      {rollback.error && <ErrorBox error={rollback.error} />}
      {rollback.result && <Notice>{t("config.published", { version: rollback.result.version })}</Notice>}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t("config.version")}</th>
              <th scope="col">{t("common.status")}</th>
              <th scope="col">{t("common.created")}</th>
              <th scope="col">{t("config.published_at")}</th>
              {can("config.publish") && <th scope="col">{t("common.actions")}</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((version) => (
              <tr key={version.version} data-version={version.version}>
                <td class="num">{version.version}</td>
                <td>
                  <Status value={version.status} />
                </td>
                <td>{formatDate(version.created_at)}</td>
                <td>{formatDate(version.published_at)}</td>
                {can("config.publish") && (
                  <td>
                    {version.status === "superseded" && version.published_at && (
                      <ConfirmButton
                        label={t("config.rollback")}
                        question={t("config.rollback.confirm", { version: version.version })}
                        onConfirm={() => rollback.run(version.version)}
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
