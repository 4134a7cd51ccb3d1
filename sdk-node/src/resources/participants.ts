import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function participantsResource(api: Client<paths>) {
  const path = (externalId: string) => ({ params: { path: { external_id: externalId } } });
  return {
    /** Creates the participant or updates the fields sent. */
    upsert: (input: RequestBody<"Participants_upsert">) => unwrap(api.POST("/v1/participants", { body: input })),
    get: (externalId: string) => unwrap(api.GET("/v1/participants/{external_id}", path(externalId))),
    progress: (externalId: string) => unwrap(api.GET("/v1/participants/{external_id}/progress", path(externalId))),
    /** Progress of 1..200 participants in the requested order; unknown ids are left out. */
    progressMany: (externalIds: string[]) => unwrap(api.POST("/v1/participants/progress", { body: { external_ids: externalIds } })),
    /** A participant token for the browser (creates the participant if absent). */
    token: (externalId: string, input?: RequestBody<"Participants_createToken">) =>
      unwrap(api.POST("/v1/participants/{external_id}/token", { ...path(externalId), body: input })),
    /** Moves a participant to a new external id (optionally merging, or as a dry run). */
    /** The participant's provably fair wheel spins with seeds, nonces and outcomes (the audit). */
    wheelSpins: (externalId: string, query?: QueryParams<"WheelAudit_list">) =>
      unwrap(api.GET("/v1/participants/{external_id}/wheel_spins", { params: { path: { external_id: externalId }, query } })),
    rename: (externalId: string, input: RequestBody<"Participants_rename">) =>
      unwrap(api.POST("/v1/participants/{external_id}/rename", { ...path(externalId), body: input })),
  };
}
