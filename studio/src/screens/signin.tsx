import { useState } from "preact/hooks";
import { api, call, type ApiError } from "../api.js";
import { LocaleSwitch } from "../app.js";
import { t } from "../i18n.js";
import { getState, setState } from "../store.js";
import { ErrorBox, Field, Page } from "../ui.js";

/** Sign-in: club id, e-mail, password; then back to `?next=` (a /studio/ path only). */
export function SignIn() {
  const params = new URLSearchParams(location.search);
  const next = params.get("next");
  const [club, setClub] = useState(() => params.get("club") ?? localStorage.getItem("clube.studio.club") ?? "");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  const [pending, setPending] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      const session = await call(api.POST("/v1/staff/sessions", { body: { club_id: club.trim(), email: email.trim(), password } }));
      localStorage.setItem("clube.studio.club", club.trim());
      setState({ session, ready: true, env: session.staff.env ?? getState().env });
      window.location.assign(next && next.startsWith("/studio/") ? next : "/studio/");
    } catch (err) {
      setError(err as ApiError);
      setPending(false);
    }
  };

  return (
    <main id="main" class="signin">
      <Page title={t("signin.title")}>
        {next && <p class="notice">{t("signin.expired")}</p>}
        <form onSubmit={submit} class="stack">
          <Field label={t("signin.club")}>
            <input name="club" required autocomplete="organization" value={club} onInput={(e) => setClub((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label={t("signin.email")}>
            <input name="email" type="email" required autocomplete="username" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label={t("signin.password")}>
            <input
              name="password"
              type="password"
              required
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          </Field>
          <button type="submit" class="primary" disabled={pending}>
            {t("signin.submit")}
          </button>
          {error && <ErrorBox error={error} />}
        </form>
        <LocaleSwitch />
      </Page>
    </main>
  );
}
