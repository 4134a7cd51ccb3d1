import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { schemaValidators } from "../../generated/validators.js";

/**
 * docs/configuration.md and examples/club.json stay in step with the
 * contract: the example validates against the contract's ClubConfig schema,
 * uses every top-level section, and the page explains each one.
 * (test/api/config-problems.test.ts publishes the example on a real club.)
 */

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), "utf8");

describe("examples/club.json and docs/configuration.md", () => {
  it("the example validates against the contract's config schema", async () => {
    const example = JSON.parse(await read("examples/club.json"));
    const validate = schemaValidators.ClubConfig;
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it("the example sets, and the page explains, every top-level section of the contract", async () => {
    const openapi = JSON.parse(await read("generated/openapi.json"));
    const sections = Object.keys(openapi.components.schemas.ClubConfig.properties);
    const example = JSON.parse(await read("examples/club.json"));
    const page = await read("docs/configuration.md");
    expect(sections.filter((name) => !(name in example))).toEqual([]);
    expect(sections.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
