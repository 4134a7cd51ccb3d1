// spec/codegen/type-dispatch.ts: the validators' copy of the document, whose
// type-disjoint `anyOf`s become if/then/else chains on the value's type, must
// accept and refuse exactly what the contract's `anyOf`s do.
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { JsonSchema, OpenApiDocument } from "../../spec/codegen/document.js";
import { dispatchByType } from "../../spec/codegen/type-dispatch.js";
import { planValidators } from "../../spec/codegen/validator-plan.js";

const addFormats = addFormatsModule.default;

function schemasDocument(schemas: Record<string, JsonSchema>): JsonSchema {
  return { components: { schemas } };
}
const rewritten = (schemas: Record<string, JsonSchema>) =>
  (dispatchByType(schemasDocument(schemas)).components as { schemas: Record<string, JsonSchema> }).schemas;

describe("dispatchByType", () => {
  it("turns an anyOf of disjoint types into if/then/else, the first branch last", () => {
    const { Leaf } = rewritten({
      Safe: { type: "string", pattern: "^[^\\u0000]*$" },
      Leaf: { description: "kept", anyOf: [{ $ref: "#/components/schemas/Safe" }, { type: "number" }, { type: "null" }] },
    });
    expect(Leaf).toEqual({
      description: "kept",
      if: { type: "string" },
      then: { $ref: "#/components/schemas/Safe" },
      else: {
        if: { type: "number" },
        then: { type: "number" },
        else: { if: { type: "null" }, then: { type: "null" }, else: { $ref: "#/components/schemas/Safe" } },
      },
    });
  });

  it("reads a branch's types through $ref, allOf, const, enum and nested unions", () => {
    const { Value, Other } = rewritten({
      Leaf: { anyOf: [{ type: "string" }, { type: "boolean" }] },
      Tag: { allOf: [{ enum: ["a", "b"] }] },
      Value: { anyOf: [{ $ref: "#/components/schemas/Leaf" }, { type: "array", items: {} }, { const: null }] },
      Other: { anyOf: [{ $ref: "#/components/schemas/Tag" }, { type: "integer" }] },
    });
    expect((Value as { if: unknown }).if).toEqual({ type: ["boolean", "string"] });
    expect((Other as { if: unknown }).if).toEqual({ type: "string" });
  });

  it("leaves alone unions whose types overlap, cannot be read, or that carry a default inline", () => {
    const schemas: Record<string, JsonSchema> = {
      Overlap: { anyOf: [{ type: "integer" }, { type: "number", minimum: 1 }] },
      Unknown: { anyOf: [{ not: { type: "string" } }, { type: "string" }] },
      Defaulted: { anyOf: [{ type: "object", properties: { a: { type: "string", default: "x" } } }, { type: "null" }] },
      Single: { anyOf: [{ type: "string" }] },
      Named: { type: "object", properties: { anyOf: { type: "string" } } },
    };
    expect(rewritten(schemas)).toEqual(schemas);
  });
});

/** Ajv as the generator configures the request validators (without the standalone step). */
function compiler(document: JsonSchema): (name: string) => ValidateFunction {
  const plan = planValidators(JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument);
  const ajv = new Ajv2020({ useDefaults: true, discriminator: true, inlineRefs: false, strictTypes: false, keywords: plan.keywords });
  addFormats(ajv, plan.formats as never);
  ajv.addSchema(document);
  return (name) => ajv.getSchema(`urn:clube:openapi#/components/schemas/${name}`)!;
}

describe("the contract's unions, dispatched", () => {
  const plan = planValidators(JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument);
  const original = compiler(plan.document);
  const dispatched = compiler(plan.dispatchedDocument);
  const awkwardString = fc.constantFrom("", "pix", "a\u0000b", "x\uD800", "\uDC00", "🎲", "1.50", "2025-03-14T18:21:58Z");
  const leaf = fc.oneof(awkwardString, fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom("a", "game_id", "__proto__x"), tie("node"), { maxKeys: 3 }),
    ),
  })).node;

  for (const name of ["Meta", "MetaValue2", "MetaLeaf", "EventAmount", "EventInput", "LevelInfo"]) {
    it(`${name}: the same verdict, the same defaults filled in, and on a refusal the same first error or that of the value's branch`, () => {
      const before = original(name);
      const after = dispatched(name);
      const input =
        name === "EventInput"
          ? fc.record(
              { participant: awkwardString, type: fc.constantFrom("bet.placed", "x"), amount: value, meta: value },
              { requiredKeys: ["participant", "type"] },
            )
          : value;
      fc.assert(
        fc.property(input, (sample) => {
          const a = structuredClone(sample);
          const b = structuredClone(sample);
          const verdict = before(a);
          expect(after(b)).toBe(verdict);
          expect(b).toEqual(a);
          if (!verdict) {
            const [first] = after.errors!;
            const [expected] = before.errors!;
            // A value of a later branch's type reports that branch's own error (at the same place or deeper)
            // where the anyOf reported its first branch refusing the value's type: "amount must match pattern …", not "must be number".
            expect(first.instancePath.startsWith(expected.instancePath)).toBe(true);
            if (first.instancePath === expected.instancePath && first.message !== expected.message) expect(expected.keyword).toBe("type");
          }
        }),
        { numRuns: 400 },
      );
    });
  }
});
