// Step 3 of `npm run generate`: generated/types.ts, the TypeScript view of the
// contract (`paths`, `components`, `operations`, `webhooks`) used by the server,
// both SDKs (through openapi-fetch) and generated/operations.ts.
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { GENERATED_HEADER } from "./banner.js";
import type { OpenApiDocument } from "./document.js";
import { withServerDefaults } from "./interop.js";

export async function generateTypes(doc: OpenApiDocument): Promise<string> {
  const ast = await openapiTS(withServerDefaults(doc) as unknown as OpenAPI3, {
    // A field with a default stays optional in request types: callers may omit it.
    defaultNonNullable: false,
    // Free-form objects (`meta`, `payload`, `flags`: no properties listed) become Record<string, unknown>, not Record<string, never>.
    emptyObjectsUnknown: true,
    silent: true,
  });
  return GENERATED_HEADER + "\n" + astToString(ast);
}
