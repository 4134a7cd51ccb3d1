import { useEffect, useState } from "preact/hooks";
import type { components } from "../../generated/types.js";

export type StaffSession = components["schemas"]["StaffSession"];
export type Env = components["schemas"]["Env"];
export type Locale = "pt-BR" | "en";

/** What every screen reads: the session, the chosen environment and language. */
export interface StudioState {
  session: StaffSession | null;
  /** False until the first `GET /v1/staff/sessions/current` answered. */
  ready: boolean;
  env: Env;
  locale: Locale;
}

const stored = (key: string): string | null => {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
};

const initialLocale = (): Locale => {
  const saved = stored("clube.studio.locale");
  if (saved === "en" || saved === "pt-BR") return saved;
  return navigator.language.toLowerCase().startsWith("pt") ? "pt-BR" : "en";
};

let state: StudioState = {
  session: null,
  ready: false,
  // Test unless the staff member chose live in this browser: never touch live data by accident.
  env: stored("clube.studio.env") === "live" ? "live" : "test",
  locale: initialLocale(),
};
const listeners = new Set<() => void>();

export function getState(): StudioState {
  return state;
}

export function setState(patch: Partial<StudioState>): void {
  state = { ...state, ...patch };
  try {
    localStorage.setItem("clube.studio.env", state.env);
    localStorage.setItem("clube.studio.locale", state.locale);
  } catch {}
  document.documentElement.lang = state.locale;
  document.documentElement.dataset.env = state.env;
  for (const listener of listeners) listener();
}

export function useStudio(): StudioState {
  const [, force] = useState(0);
  useEffect(() => {
    const listener = () => force((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

/** Whether the signed-in member's role has `permission` (buttons it can't use are hidden; the server refuses anyway). */
export function can(permission: string): boolean {
  const session = state.session;
  if (!session) return false;
  if (session.staff.env !== null && session.staff.env !== state.env) return false;
  return session.permissions.includes(permission);
}
