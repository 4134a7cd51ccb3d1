import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function affiliatesResource(api: Client<paths>) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    /** Attributes a player who signed up through an affiliate link (`?aff=`). */
    attribute: (input: RequestBody<"Affiliates_attribute">) => unwrap(api.POST("/v1/affiliates/attributions", { body: input })),
    create: (input: RequestBody<"AffiliateAccounts_create">) => unwrap(api.POST("/v1/affiliates", { body: input })),
    list: (query?: QueryParams<"AffiliateAccounts_list">) => unwrap(api.GET("/v1/affiliates", { params: { query } })),
    get: (id: string) => unwrap(api.GET("/v1/affiliates/{id}", path(id))),
    update: (id: string, input: RequestBody<"AffiliateAccounts_update">) => unwrap(api.POST("/v1/affiliates/{id}", { ...path(id), body: input })),
  };
}
