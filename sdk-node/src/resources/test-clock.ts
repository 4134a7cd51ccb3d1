import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { RequestBody } from "../types.js";

/** Test clocks: simulated time for the club's test environment (test keys only). */
export function testClockResource(api: Client<paths>) {
  return {
    /** The test environment's time, and whether a test clock is set. */
    get: () => unwrap(api.GET("/v1/test_clock")),
    /** Moves the test clock forward and runs the work that falls due before answering. */
    advance: (input: RequestBody<"TestClocks_advance">) => unwrap(api.POST("/v1/test_clock/advance", { body: input })),
    /** Back to real time (refused once events were recorded after real now). */
    delete: () => unwrap(api.DELETE("/v1/test_clock")),
  };
}
