import { ClubeError, errorFromResponse } from "./errors.js";

/** What openapi-fetch resolves to: the success body in `data`, or the error body in `error`. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * Turns an openapi-fetch call into "the typed success body, or a thrown
 * `ClubeError`", which is the calling convention of every SDK method.
 */
export async function unwrap<R extends FetchResult>(pending: Promise<R>): Promise<Exclude<R["data"], undefined>> {
  let result: R;
  try {
    result = await pending;
  } catch (err) {
    if (err instanceof ClubeError) throw err;
    // openapi-fetch parses 2xx bodies with JSON.parse and lets a SyntaxError escape.
    if (err instanceof SyntaxError) {
      throw new ClubeError({ status: null, code: "unexpected_response", message: `The answer is not valid JSON: ${err.message}`, requestId: null, raw: err });
    }
    throw err;
  }
  if (!result.response.ok) throw errorFromResponse(result.response, result.error);
  return result.data as Exclude<R["data"], undefined>;
}
