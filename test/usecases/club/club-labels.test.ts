import { describe, expect, it } from "vitest";
import type { ClubConfig } from "../../../server/src/engine/config.js";
import { clubLabel, levelName, renderClubMessage } from "../../../server/src/usecases/shared/club-messages.js";
import { validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { demoConfig } from "../../support/api.js";

/**
 * The words the service itself puts in front of participants (level names,
 * the titles of cashback payments and official tournaments) come from message
 * templates: the club's own, else built-in texts in the club's locale, then
 * pt-BR, then en — never a literal in code.
 */
async function configWith(patch: Record<string, unknown>): Promise<ClubConfig> {
  return validateClubConfig({ ...(await demoConfig()), ...patch });
}

describe("participant-facing labels", () => {
  it("default to pt-BR, follow crm.locale, and fall back to en for an unknown locale", async () => {
    const ptBr = await configWith({});
    const en = await configWith({ crm: { locale: "en" } });
    const fr = await configWith({ crm: { locale: "fr" } });
    expect([levelName(7, ptBr), levelName(7, en), levelName(7, fr)]).toEqual(["Nível 7", "Level 7", "Nível 7"]);
    expect(clubLabel(en, "official_tournament_daily", { track: "Slots" })).toBe("Slots (daily)");
    expect(clubLabel(ptBr, "official_tournament_monthly", { track: "Slots" })).toBe("Slots (mensal)");
    expect(clubLabel(en, "official_prize_reward")).toBe("Official tournament prize");
    expect(clubLabel(en, "cashback_reward")).toBe("Cashback");
  });

  it("a club template with the same code replaces the built-in text, also inside other messages", async () => {
    const config = await configWith({
      crm: { locale: "en" },
      messageTemplates: [{ code: "level_name", texts: { en: { title: "Rank {{level}}" } } }],
    });
    expect(levelName(12, config)).toBe("Rank 12");
    // level_up's built-in text names the level; whoever filled the variables, it reads the club's name.
    expect(renderClubMessage(config, "level_up", { level: 12, level_name: "Nível 12" })).toEqual({ title: "You reached Rank 12!", body: null });
  });

  it("level names are remembered per config, and follow its templates and locale when they are replaced", async () => {
    const config = await configWith({ crm: { locale: "en" } });
    expect([levelName(3, config), levelName(3, config)]).toEqual(["Level 3", "Level 3"]);
    config.messageTemplates = [{ code: "level_name", texts: { en: { title: "Rank {{level}}" }, "pt-BR": { title: "Posto {{level}}" } } }];
    expect(levelName(3, config)).toBe("Rank 3");
    config.crm = { ...config.crm, locale: "pt-BR" };
    expect(levelName(3, config)).toBe("Posto 3");
    // Another config with the same level keeps its own name.
    expect(levelName(3, await configWith({}))).toBe("Nível 3");
  });
});
