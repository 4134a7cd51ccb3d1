import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function deliveriesResource(api: Client<paths>) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    /** Deliveries (up to 200), optionally by status; meant for a routine that checks nothing was left behind. */
    list: (query?: QueryParams<"Deliveries_list">) => unwrap(api.GET("/v1/deliveries", { params: { query } })),
    /** Marks a delivery credited in your system; safe to repeat. */
    confirm: (id: string, input?: RequestBody<"Deliveries_confirm">) =>
      unwrap(api.POST("/v1/deliveries/{id}/confirm", { ...path(id), body: input })),
    /** Marks a delivery failed, with the reason shown to the participant and club staff. */
    fail: (id: string, input: RequestBody<"Deliveries_fail">) => unwrap(api.POST("/v1/deliveries/{id}/fail", { ...path(id), body: input })),
  };
}
