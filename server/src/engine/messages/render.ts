/*
 * Message templates: `{{name}}` placeholders replaced by plain values, in one
 * pass (a value containing `{{…}}` is never expanded again), unknown names
 * rendering empty. Deliberately no logic, partials or HTML escaping: the texts
 * are plain (inbox, e-mail subject, SMS) and the client formats them.
 */

export type MessageVariables = Record<string, string | number | null | undefined>;

export interface MessageText {
  title: string;
  body?: string;
}

export interface RenderedMessage {
  title: string;
  body: string | null;
}

const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/gi;

export function renderText(template: string, variables: MessageVariables): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return value === null || value === undefined ? "" : String(value);
  });
}

/** The locales tried, in order: the club's, then pt-BR, then en. */
export function localeChain(clubLocale: string | undefined): string[] {
  return [...new Set([clubLocale ?? "pt-BR", "pt-BR", "en"])];
}

/** The text for the first locale of the chain the template has (else its first text); null when it has none. */
export function pickText(texts: Record<string, MessageText>, chain: string[]): MessageText | null {
  for (const locale of chain) if (Object.hasOwn(texts, locale)) return texts[locale];
  const first = Object.values(texts)[0];
  return first ?? null;
}

export function renderMessage(text: MessageText, variables: MessageVariables): RenderedMessage {
  return { title: renderText(text.title, variables), body: text.body === undefined ? null : renderText(text.body, variables) };
}
