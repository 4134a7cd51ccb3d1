import { describe, expect, it } from "vitest";
import { validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { meConfigView } from "../../../server/src/usecases/widget/me-config.js";
import { demoConfig } from "../../support/api.js";

/** The participant view is built field by field: what is hidden, and what a front end can rely on. */
describe("meConfigView", () => {
  it("hides cards of modules the engine cannot serve, disabled cards and blocks, and a disabled wheel", async () => {
    const input = await demoConfig();
    input.moduleCards.push(
      { module: "codes", title: "Códigos", subtitle: "Resgate um código" },
      { module: "seasons", title: "Temporada", subtitle: "Passe de temporada" },
      { module: "minigames", title: "Jogos", subtitle: "Minigames" },
      { module: "badges", title: "Conquistas", subtitle: "Suas medalhas", enabled: false },
      { module: "referral", title: "Indique", subtitle: "Ganhe com amigos" },
    );
    input.home = ["hero", { block: "faq", enabled: false }, { block: "modules", title: "Para você" }];
    input.wheel.enabled = false;
    const view = meConfigView(validateClubConfig(input), 3);
    expect(view.moduleCards.map((card) => card.module)).toEqual(["checkin", "missions", "store", "referral"]);
    expect(view.home).toEqual([
      { block: "hero", title: null, subtitle: null },
      { block: "modules", title: "Para você", subtitle: null },
    ]);
    expect(view.wheel).toBeNull();
    expect(view.config_version).toBe(3);
  });

  it("labels every calendar day, repeating the configured rewards, and marks highlighted days", async () => {
    const input = await demoConfig();
    input.checkin = { days: 14, rewards: [{ reward: "coins:10" }, { reward: "coins-100", label: "Cem" }, { reward: "xp:5" }], highlightDays: [7, 14] };
    const view = meConfigView(validateClubConfig(input), 1);
    expect(view.checkin!.calendar).toHaveLength(14);
    expect(view.checkin!.calendar.slice(0, 4).map((day) => day.label)).toEqual(["10 Moedas", "Cem", "5 XP", "10 Moedas"]);
    expect(view.checkin!.calendar.filter((day) => day.highlight).map((day) => day.day)).toEqual([7, 14]);
  });
});
