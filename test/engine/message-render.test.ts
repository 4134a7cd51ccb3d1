import { expect, it } from "vitest";
import { localeChain, pickText, renderText } from "../../server/src/engine/messages/render.js";

it("replaces placeholders once, as plain text, unknown and null ones empty", () => {
  expect(renderText("Olá, {{ display_name }}! {{level}} {{missing}}{{nothing}}.", { display_name: "{{level}} <b>", level: 3, nothing: null })).toBe(
    "Olá, {{level}} <b>! 3 .",
  );
  // Object prototype names are not variables.
  expect(renderText("{{constructor}}{{toString}}", {})).toBe("");
});

it("picks the club's locale, then pt-BR, then en, then the first text", () => {
  const texts = { es: { title: "es" }, en: { title: "en" }, "pt-BR": { title: "pt" } };
  expect(pickText(texts, localeChain("es"))?.title).toBe("es");
  expect(pickText(texts, localeChain(undefined))?.title).toBe("pt");
  expect(pickText({ en: { title: "en" }, fr: { title: "fr" } }, localeChain("de"))?.title).toBe("en");
  expect(pickText({ fr: { title: "fr" } }, localeChain("pt-BR"))?.title).toBe("fr");
  expect(pickText({}, localeChain("pt-BR"))).toBeNull();
});
