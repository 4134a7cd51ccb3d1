// What the API reference at /docs reads from the contract (spec/codegen/reference.ts):
// short summaries, a code sample per operation, every tag in a group, the guides.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listOperations, type OpenApiDocument } from "../../spec/codegen/document.js";
import { SUMMARY_LIMIT } from "../../spec/codegen/reference.js";

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument;
const operations = listOperations(doc);
type Sample = { lang: string; label: string; source: string };

describe("the reference's contract", () => {
  it(`keeps every operation and webhook summary within ${SUMMARY_LIMIT} characters (the detail is in the description)`, () => {
    const long: string[] = [];
    for (const { operationId, operation } of operations) if (!operation.summary || operation.summary.length > SUMMARY_LIMIT) long.push(operationId);
    for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
      for (const operation of Object.values(item) as { summary?: string }[])
        if (!operation.summary || operation.summary.length > SUMMARY_LIMIT) long.push(event);
    }
    expect(long).toEqual([]);
  });

  it("has a curl sample on every operation, a @clube/node one wherever the SDK has a method, and a @clube/browser one on the participant surface", () => {
    for (const { operationId, operation } of operations) {
      const samples = operation["x-codeSamples"] as Sample[];
      const labels = samples.map((sample) => sample.label);
      expect(labels[0], operationId).toBe("curl");
      const textExport = operationId.endsWith("Csv");
      const security = (operation.security ?? []) as Record<string, unknown>[];
      const consoleOnly =
        operationId === "StaffSessions_create" || (security.length > 0 && security.every((alt) => Object.keys(alt).join() === "StaffSessionAuth"));
      expect(labels.includes("@clube/node"), operationId).toBe(!textExport && !consoleOnly);
      expect(labels.includes("@clube/browser"), operationId).toBe(operation.tags?.[0] === "Me");
      // Every path parameter has an example id (no `{external_id}` left in a call).
      for (const sample of samples) expect(sample.source.replace(/^ *\/\/.*$/gm, ""), `${operationId} ${sample.label}`).not.toMatch(/\{[a-z_]+\}/);
    }
    const send = operations.find((op) => op.operationId === "Events_send")!.operation["x-codeSamples"] as Sample[];
    expect(send[1].source).toContain("await clube.events.send({");
    const spin = operations.find((op) => op.operationId === "Me_spinWheel")!.operation["x-codeSamples"] as Sample[];
    expect(spin.map((sample) => sample.source)).toEqual([
      expect.stringContaining("Authorization: Bearer $CLUBE_PARTICIPANT_TOKEN"),
      expect.stringContaining('await clube.me("user_8412").spin()'),
      expect.stringContaining("await clube.me.spin()"),
    ]);
  });

  it("puts every tag in one group, guides first, and merges the key tags", () => {
    const groups = doc["x-tagGroups"] as { name: string; tags: string[] }[];
    const grouped = groups.flatMap((group) => group.tags);
    expect(grouped.sort()).toEqual((doc.tags as { name: string }[]).map((tag) => tag.name).sort());
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(groups.map((group) => group.name)).toEqual(["Guides", "Integrate", "Participant surface", "Webhooks", "Manage", "Schemas"]);
    expect(grouped).not.toContain("Keys");
    const guides = (doc.tags as { name: string; description?: string; "x-traitTag"?: boolean }[]).filter((tag) => tag["x-traitTag"]);
    expect(guides.map((tag) => tag.name)).toEqual(groups[0].tags);
    for (const guide of guides) expect(guide.description!.length, guide.name).toBeGreaterThan(500);
  });

  it("lists the objects operations send and accept in the Schemas section (what Redoc's search finds), not every nested one", () => {
    const schemas = (doc.components as { schemas: Record<string, { "x-tags"?: string[] }> }).schemas;
    const listed = Object.keys(schemas).filter((name) => schemas[name]["x-tags"]?.includes("Schemas"));
    expect(listed).toEqual(expect.arrayContaining(["Redemption", "RedemptionRequest", "EventInput", "WebhookEndpoint", "MeConfig", "ErrorBody"]));
    expect(listed).not.toContain("RedemptionCost");
    expect(listed.length).toBeLessThan(Object.keys(schemas).length / 2);
  });

  it("says nothing about how the document is built in its introduction", () => {
    expect(String((doc.info as { description?: string }).description)).not.toMatch(/codegen|post-process/i);
  });
});
