import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ModuleName } from "../protocol";
import { CallError, createApi, type Api, type MeConfig, type Schemas } from "./api";
import { formatters } from "./format";
import { connectHost } from "./host";
import { stringsFor } from "./i18n";
import { applyTheme, prefersReducedMotion } from "./theme";
import { Ctx, type WidgetContext } from "./context";
import { Home } from "./home";
import { moduleView, MODULES } from "./modules";
import "./app.css";

/*
 * The widget app in its iframe: waits for the host's token (`identify`),
 * checks the host page's origin with the server, loads the participant's
 * config view and progress, then shows the home screen or a module.
 */
const params = new URLSearchParams(location.hash.slice(1));
const { locale, t } = stringsFor(params.get("locale") || "pt-BR");
document.documentElement.lang = locale;
const scheme = params.get("scheme") === "auto" ? (matchMedia("(prefers-color-scheme: light)").matches ? "light" : "dark") : params.get("scheme");
if (scheme === "light" || scheme === "dark") document.documentElement.dataset.scheme = scheme;
const host = connectHost();
const api = createApi(host);

type Phase = { kind: "loading" } | { kind: "ready"; config: MeConfig } | { kind: "refused"; origin: string } | { kind: "failed"; message: string };

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: "loading" });
  const [route, setRoute] = useState<ModuleName>((params.get("module") as ModuleName) || "home");
  const [progress, setProgress] = useState<Schemas["ParticipantProgress"] | null>(null);
  const [profile, setProfile] = useState<Schemas["ParticipantProfile"] | null>(null);

  const refresh = useCallback(async () => {
    const [nextProgress, nextProfile] = await Promise.all([api.me.progress(), api.me.profile()]);
    setProgress(nextProgress);
    setProfile(nextProfile);
  }, []);

  const start = useCallback(async () => {
    setPhase({ kind: "loading" });
    const origin = await host.origin();
    try {
      const config = await api.config(origin);
      applyTheme(config.theme, prefersReducedMotion());
      await refresh();
      setPhase({ kind: "ready", config });
    } catch (err) {
      if (err instanceof CallError && err.code === "origin_not_allowed") {
        setPhase({ kind: "refused", origin });
        host.send({ clube: 1, type: "error", code: err.code, message: err.message });
      } else {
        setPhase({ kind: "failed", message: err instanceof Error ? err.message : String(err) });
      }
    }
  }, [refresh]);

  useEffect(() => {
    host.onNavigate((module) => setRoute(module));
    host.send({ clube: 1, type: "ready" });
    void start();
  }, [start]);

  // The host sizes the iframe to the content.
  useEffect(() => {
    // The body's own height, not the document's: the document is never shorter than the frame, so the frame could only grow.
    const report = () => host.send({ clube: 1, type: "resize", height: Math.ceil(document.body.getBoundingClientRect().height) });
    const observer = new ResizeObserver(report);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const open = (module: ModuleName) => {
    setRoute(module);
    host.send({ clube: 1, type: "navigate", module });
    window.scrollTo(0, 0);
  };

  if (phase.kind === "loading")
    return (
      <main class="screen" aria-busy="true">
        <p role="status">{t.loading}</p>
      </main>
    );
  if (phase.kind === "refused") {
    return (
      <main class="screen">
        <div class="card error" role="alert" data-testid="origin-refused">
          <h1>{t.originRefused}</h1>
          <p>{t.originRefusedHelp(phase.origin)}</p>
        </div>
      </main>
    );
  }
  if (phase.kind === "failed") {
    return (
      <main class="screen">
        <div class="card error" role="alert">
          <h1>{t.failed}</h1>
          <p class="muted">{phase.message}</p>
          <button class="btn" onClick={() => void start()}>
            {t.retry}
          </button>
        </div>
      </main>
    );
  }

  const config = phase.config;
  const context: WidgetContext = {
    api: api as Api,
    config,
    t,
    locale,
    fmt: formatters(locale, config),
    progress,
    profile,
    refresh,
    open,
    track: (name, data) => host.send({ clube: 1, type: "event", name, data }),
  };
  const known = route === "home" || MODULES.includes(route);
  const title =
    route === "home" || !known ? config.club_name : (config.moduleCards.find((card) => card.module === route)?.title ?? (t[route as keyof typeof t] as string));
  return (
    <Ctx.Provider value={context}>
      <header class="bar">
        {route !== "home" && known ? (
          <button class="btn ghost" onClick={() => open("home")} aria-label={t.back}>
            ‹ {t.back}
          </button>
        ) : null}
        {config.theme.logoUrl ? <img class="logo" src={config.theme.logoUrl} alt="" /> : null}
        <h1 class="bar-title">{title}</h1>
        <button class="btn ghost" onClick={() => open("notifications")} aria-label={t.notifications}>
          <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
            <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z" />
          </svg>
        </button>
      </header>
      <main class="screen" id="main">
        {route === "home" || !known ? <Home /> : moduleView(route)}
        {config.legalNote ? <footer class="legal muted">{config.legalNote}</footer> : null}
      </main>
    </Ctx.Provider>
  );
}

render(<App />, document.getElementById("app")!);
