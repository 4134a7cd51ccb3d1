import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function webhookEndpointsResource(api: Client<paths>) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    /** Registers an endpoint; the answer holds its signing `secret`, shown only here and on rotation. */
    create: (input: RequestBody<"WebhookEndpoints_create">) => unwrap(api.POST("/v1/webhook_endpoints", { body: input })),
    list: (query?: QueryParams<"WebhookEndpoints_list">) => unwrap(api.GET("/v1/webhook_endpoints", { params: { query } })),
    get: (id: string) => unwrap(api.GET("/v1/webhook_endpoints/{id}", path(id))),
    update: (id: string, input: RequestBody<"WebhookEndpoints_update">) =>
      unwrap(api.POST("/v1/webhook_endpoints/{id}", { ...path(id), body: input })),
    delete: (id: string) => unwrap(api.DELETE("/v1/webhook_endpoints/{id}", path(id))),
    rotateSecret: (id: string) => unwrap(api.POST("/v1/webhook_endpoints/{id}/rotate_secret", path(id))),
    /** Each sending to this endpoint, with status, attempts and the last error. */
    sendings: (id: string, query?: QueryParams<"WebhookEndpoints_listSendings">) =>
      unwrap(api.GET("/v1/webhook_endpoints/{id}/sendings", { params: { path: { id }, query } })),
    /** Sends a (failed) sending again now. */
    resend: (sendingId: string) => unwrap(api.POST("/v1/webhook_sendings/{id}/resend", path(sendingId))),
  };
}
