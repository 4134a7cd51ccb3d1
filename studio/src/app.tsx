import { useEffect } from "preact/hooks";
import { Link, Redirect, Route, Router, Switch, useLocation } from "wouter-preact";
import { api, call, signInUrl, whenSessionExpires } from "./api.js";
import { t, type MessageKey } from "./i18n.js";
import { can, getState, setState, useStudio, type Env, type Locale } from "./store.js";
import { Page } from "./ui.js";
import { SignIn } from "./screens/signin.js";
import { EventDetail, Events } from "./screens/events.js";
import { WebhookDetail, Webhooks } from "./screens/webhooks.js";
import { ParticipantDetail, Participants } from "./screens/participants.js";
import { Deliveries } from "./screens/deliveries.js";
import { Configuration } from "./screens/config.js";
import { Access } from "./screens/access.js";
import { TestClock } from "./screens/clock.js";
import { Overview } from "./screens/overview.js";
import { Programs } from "./screens/programs.js";

const NAV: { path: string; key: MessageKey; permission: string }[] = [
  { path: "/", key: "nav.overview", permission: "events.read" },
  { path: "/events", key: "nav.events", permission: "events.read" },
  { path: "/participants", key: "nav.participants", permission: "participants.read" },
  { path: "/deliveries", key: "nav.deliveries", permission: "deliveries.read" },
  { path: "/webhooks", key: "nav.webhooks", permission: "webhooks.read" },
  { path: "/config", key: "nav.config", permission: "config.read" },
  { path: "/programs", key: "nav.programs", permission: "codes.read" },
  { path: "/access", key: "nav.access", permission: "keys.read" },
  { path: "/clock", key: "nav.clock", permission: "test_clock.read" },
];

export function App() {
  return (
    <Router base="/studio">
      <Switch>
        <Route path="/sign-in" component={SignIn} />
        <Route>
          <Shell />
        </Route>
      </Switch>
    </Router>
  );
}

/** Asks who is signed in once; an expired or missing session goes to sign-in and comes back here. */
function useSession() {
  const { ready, session } = useStudio();
  useEffect(() => {
    whenSessionExpires(() => {
      setState({ session: null, ready: true });
      location.assign(signInUrl());
    });
    if (ready) return;
    call(api.GET("/v1/staff/sessions/current")).then(
      (current) => setState({ session: current, ready: true, env: current.staff.env ?? getState().env }),
      () => setState({ session: null, ready: true }),
    );
  }, []);
  return { ready, session };
}

function Shell() {
  const { ready, session } = useSession();
  const [location] = useLocation();
  const studio = useStudio();
  if (!ready) return <p role="status">{t("state.loading")}</p>;
  if (!session) return <Redirect to={`/sign-in?next=${encodeURIComponent("/studio" + location)}`} />;
  const current = (path: string) => (path === "/" ? location === "/" : location.startsWith(path));
  return (
    <div class="shell" data-env={studio.env}>
      <a class="skip" href="#main">
        {t("app.skip")}
      </a>
      <header class="top">
        <span class="brand">{t("app.name")}</span>
        <EnvSwitch />
        <div class={`env-banner env-${studio.env}`} role="note">
          {t(studio.env === "live" ? "env.banner.live" : "env.banner.test")}
        </div>
        <LocaleSwitch />
        <span class="who">{t("signed.as", { name: session.staff.display_name, role: session.staff.role })}</span>
        <button
          type="button"
          onClick={async () => {
            await api.DELETE("/v1/staff/sessions/current");
            setState({ session: null });
            window.location.assign("/studio/sign-in");
          }}
        >
          {t("signout")}
        </button>
      </header>
      <nav class="side" aria-label={t("nav.label")}>
        <ul>
          {NAV.filter((item) => can(item.permission) && (item.path !== "/clock" || studio.env === "test")).map((item) => (
            <li key={item.path}>
              <Link href={item.path} aria-current={current(item.path) ? "page" : undefined}>
                {t(item.key)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content">
        <Switch>
          <Route path="/" component={Overview} />
          <Route path="/events" component={Events} />
          <Route path="/events/:id">{(params) => <EventDetail id={params.id} />}</Route>
          <Route path="/participants" component={Participants} />
          <Route path="/participants/:id">{(params) => <ParticipantDetail externalId={decodeURIComponent(params.id)} />}</Route>
          <Route path="/deliveries" component={Deliveries} />
          <Route path="/webhooks" component={Webhooks} />
          <Route path="/webhooks/:id">{(params) => <WebhookDetail id={params.id} />}</Route>
          <Route path="/config" component={Configuration} />
          <Route path="/programs" component={Programs} />
          <Route path="/access" component={Access} />
          <Route path="/clock" component={TestClock} />
          <Route>
            <Page title={t("notfound")}>
              <p>
                <Link href="/">{t("nav.overview")}</Link>
              </p>
            </Page>
          </Route>
        </Switch>
      </main>
    </div>
  );
}

function EnvSwitch() {
  const { env, session } = useStudio();
  const locked = session?.staff.env ?? null;
  return (
    <fieldset class="env-switch">
      <legend>{t("env.label")}</legend>
      {(["test", "live"] as Env[]).map((value) => (
        <label key={value} class={`env-option env-${value}`}>
          <input
            type="radio"
            name="env"
            value={value}
            checked={env === value}
            disabled={locked !== null && locked !== value}
            onChange={() => setState({ env: value })}
          />
          {t(value === "test" ? "env.test" : "env.live")}
        </label>
      ))}
    </fieldset>
  );
}

export function LocaleSwitch() {
  const { locale } = useStudio();
  return (
    <label class="locale">
      <span>{t("locale.label")}</span>
      <select value={locale} onChange={(event) => setState({ locale: (event.target as HTMLSelectElement).value as Locale })}>
        <option value="pt-BR" lang="pt-BR">
          Português (Brasil)
        </option>
        <option value="en" lang="en">
          English
        </option>
      </select>
    </label>
  );
}
