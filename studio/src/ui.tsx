import type { ComponentChildren, JSX } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type ApiError } from "./api.js";
import { t } from "./i18n.js";
import { useStudio } from "./store.js";

export interface Query<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` on mount, again when `deps` or the environment change, and on `reload()`. */
export function useQuery<T>(load: () => Promise<T>, deps: unknown[] = []): Query<T> {
  const { env } = useStudio();
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let alive = true;
    setState((previous) => ({ data: previous.data, loading: true }));
    load().then(
      (data) => alive && setState({ data, loading: false }),
      (error: ApiError) => alive && setState({ error, loading: false }),
    );
    return () => {
      alive = false;
    };
  }, [env, tick, ...deps]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** A screen: its heading takes the focus when the route changes, so screen readers announce the new page. */
export function Page({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Clube Studio`;
    heading.current?.focus();
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions && <div class="page-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** Loading, error (with retry) and empty states around a query's data. */
export function Loaded<T>({ query, empty, children }: { query: Query<T>; empty?: (data: T) => boolean; children: (data: T) => ComponentChildren }) {
  if (query.error) return <ErrorBox error={query.error} retry={query.reload} />;
  if (query.data === undefined)
    return (
      <p class="muted" role="status">
        {t("state.loading")}
      </p>
    );
  if (empty?.(query.data)) return <p class="empty">{t("state.empty")}</p>;
  return <>{children(query.data)}</>;
}

export function ErrorBox({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{t("state.error", { message: error.message })}</p>
      {error.details && (
        <ul>
          {error.details.map((problem) => (
            <li key={problem.param}>
              <code>{problem.param}</code>: {problem.message}
            </li>
          ))}
        </ul>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          {t("state.retry")}
        </button>
      )}
    </div>
  );
}

/** A polite announcement (saved, sent…). */
export function Notice({ children, tone = "ok" }: { children: ComponentChildren; tone?: "ok" | "error" }) {
  return (
    <p class={`notice ${tone}`} role={tone === "error" ? "alert" : "status"}>
      {children}
    </p>
  );
}

/** Runs an action and keeps its pending/error state for the button and the message beside it. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [result, setResult] = useState<T | undefined>();
  const run = async (...args: A): Promise<T | undefined> => {
    setPending(true);
    setError(undefined);
    try {
      const value = await action(...args);
      setResult(value);
      return value;
    } catch (err) {
      setError(err as ApiError);
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error, result, setResult };
}

/** A button for a destructive or irreversible action: asks in a modal dialog first. */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  class: className,
  disabled,
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  class?: string;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class={className} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={undefined} class="confirm">
        <form method="dialog">
          <h2>{t("confirm.title")}</h2>
          <p>{question}</p>
          <div class="row">
            <button value="cancel" type="submit">
              {t("common.cancel")}
            </button>
            <button
              value="ok"
              type="submit"
              class="danger"
              onClick={() => {
                // The dialog closes on submit; the action runs after.
                setTimeout(onConfirm, 0);
              }}
            >
              {label}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** A secret shown once, with a copy button. */
export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> — {t("common.secret.once")}
      </p>
      <div class="row">
        <code data-testid="secret">{secret}</code>
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(secret);
            } catch {}
            setCopied(true);
          }}
        >
          {copied ? t("common.copied") : t("common.copy")}
        </button>
      </div>
    </div>
  );
}

export function Field({ label, children, hint }: { label: string; children: JSX.Element; hint?: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small class="muted">{hint}</small>}
    </label>
  );
}

export function Status({ value }: { value: string }) {
  return <span class={`badge s-${value}`}>{value}</span>;
}
