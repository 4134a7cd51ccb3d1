import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ModuleName } from "../protocol";
import type { Api, MeConfig, Schemas } from "./api";
import type { Formatters } from "./format";
import type { Strings } from "./i18n";

export interface WidgetContext {
  api: Api;
  config: MeConfig;
  t: Strings;
  locale: string;
  fmt: Formatters;
  progress: Schemas["ParticipantProgress"] | null;
  profile: Schemas["ParticipantProfile"] | null;
  /** Reloads progress and profile (balances, XP) after an action. */
  refresh: () => Promise<void>;
  open: (module: ModuleName) => void;
  /** Tells the host about a participant action (`event` message). */
  track: (name: string, data?: Record<string, unknown>) => void;
}

export const Ctx = createContext<WidgetContext>(null as unknown as WidgetContext);
export const useWidget = () => useContext(Ctx);
