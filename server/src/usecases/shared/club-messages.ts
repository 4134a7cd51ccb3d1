import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { BUILT_IN_TEMPLATES } from "../../engine/messages/built-in.js";
import { localeChain, pickText, renderMessage, type MessageText, type MessageVariables, type RenderedMessage } from "../../engine/messages/render.js";

/*
 * The club's messages: inbox texts and CRM requests rendered from the config's
 * `messageTemplates` (else the built-in texts), in the locale chain of
 * `crm.locale` → pt-BR → en.
 */

type Schemas = components["schemas"];

/** What a message may say about its participant; contact fields absent mean "unknown" (no CRM message). */
export interface MessageRecipient {
  id: string;
  externalId: string;
  level: number;
  tierCode?: string | null;
  displayName?: string | null;
  email?: string | null;
  phone?: string | null;
}

export function participantVariables(config: ClubConfig, participant: MessageRecipient): MessageVariables {
  const tier = !participant.tierCode ? null : config.progression.tiers.find((candidate) => candidate.code === participant.tierCode);
  return {
    display_name: participant.displayName ?? "",
    external_id: participant.externalId,
    level: participant.level,
    level_name: levelName(participant.level, config),
    tier: tier?.name ?? participant.tierCode ?? "",
  };
}

/**
 * The rendered message of `code`; null when neither the club nor the built-ins
 * define it. `level_name` is the club's name of `level` whenever a level is
 * given, whoever filled the variables.
 */
export function renderClubMessage(config: ClubConfig | undefined, code: string, variables: MessageVariables): RenderedMessage | null {
  // The schema validates each locale's text (MessageTextConfig); the generated type only says "object".
  const configured = config?.messageTemplates?.find((template) => template.code === code)?.texts as Record<string, MessageText> | undefined;
  const texts = configured ?? BUILT_IN_TEMPLATES[code];
  const text = texts && pickText(texts, localeChain(config?.crm?.locale));
  if (!text) return null;
  const named = typeof variables.level === "number" && code !== "level_name" ? { ...variables, level_name: levelName(variables.level, config) } : variables;
  return renderMessage(text, named);
}

/** A label participants see (see BUILT_IN_TEMPLATES), in the club's words and locale. */
export function clubLabel(config: ClubConfig | undefined, code: string, variables: MessageVariables = {}): string {
  const rendered = renderClubMessage(config, code, variables);
  if (!rendered) throw new Error(`no built-in text ${code}`);
  return rendered.title;
}

/** Level names already rendered, per config: the templates and locale they were rendered with, and the names by level. */
interface LevelNames {
  templates: ClubConfig["messageTemplates"];
  locale: string | undefined;
  names: Map<number, string>;
}
const levelNamesByConfig = new WeakMap<ClubConfig, LevelNames>();
const builtInLevelNames = new Map<number, string>();
/** Levels kept per config: a club has a few dozen; the bound only guards against a config naming every integer. */
const MAX_LEVEL_NAMES = 1000;

function levelNamesOf(config: ClubConfig): Map<number, string> {
  const templates = config.messageTemplates;
  const locale = config.crm?.locale;
  let cached = levelNamesByConfig.get(config);
  // A config object changed in place (a test building one) renders afresh: the memo follows what the name depends on.
  if (!cached || cached.templates !== templates || cached.locale !== locale) levelNamesByConfig.set(config, (cached = { templates, locale, names: new Map() }));
  return cached.names;
}

/**
 * The name participants see for a level ("Nível 7", "Level 7", or the club's
 * `level_name` template). Remembered per config and level: it depends on
 * nothing else, and a batch asks for it several times per level-up (the
 * participant's variables, the notification's, the rendered message's) —
 * each a template lookup, a locale chain and a render.
 */
export function levelName(level: number, config?: ClubConfig): string {
  const names = config ? levelNamesOf(config) : builtInLevelNames;
  let name = names.get(level);
  if (name === undefined) {
    name = clubLabel(config, "level_name", { level });
    if (names.size < MAX_LEVEL_NAMES) names.set(level, name);
  }
  return name;
}

/**
 * The `message.requested` data for a `notify`, or null when the club's CRM is
 * not in webhook mode or the participant has no contact: e-mail first, else SMS.
 */
export function messageRequest(
  config: ClubConfig,
  participant: MessageRecipient,
  template: string,
  rendered: RenderedMessage,
  variables: MessageVariables,
): Schemas["MessageRequestedWebhookData"] | null {
  if (config.crm?.mode !== "webhook") return null;
  const contact = participant.email
    ? { channel: "email" as const, to: participant.email }
    : participant.phone
      ? { channel: "sms" as const, to: participant.phone }
      : null;
  if (!contact) return null;
  return {
    participant: { id: participant.id, external_id: participant.externalId },
    ...contact,
    template,
    subject: rendered.title,
    body: rendered.body ?? rendered.title,
    variables,
  };
}
