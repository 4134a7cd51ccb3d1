import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { useWidget } from "./context";

/** Loads a module's data; `reload` after an action. */
export function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null; reload: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await load());
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

/** Shows loading / error / content for a loaded value. */
export function Loaded<T>(props: { state: { data: T | null; error: string | null }; children: (data: T) => ComponentChildren }) {
  const { t } = useWidget();
  if (props.state.error)
    return (
      <p class="card error" role="alert">
        {props.state.error}
      </p>
    );
  if (props.state.data === null)
    return (
      <p role="status" class="muted">
        {t.loading}
      </p>
    );
  return <>{props.children(props.state.data)}</>;
}

/** A labelled progress bar (ARIA progressbar). */
export function Bar(props: { value: number; max: number; label: string }) {
  const percent = props.max > 0 ? Math.min(100, Math.round((props.value / props.max) * 100)) : 100;
  return (
    <div
      class="bar-track"
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={props.max}
      aria-valuenow={Math.min(props.value, props.max)}
    >
      <div class="bar-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

/** The message shown after an action (polite live region). */
export function Notice(props: { text: string | null; error?: boolean }) {
  return (
    <p class={props.error ? "notice error" : "notice"} role={props.error ? "alert" : "status"} aria-live="polite">
      {props.text ?? ""}
    </p>
  );
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A random idempotency key (crypto.getRandomValues works outside secure contexts too, unlike randomUUID). */
export function newKey(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
