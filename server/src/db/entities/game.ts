import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { idColumn, tenancyColumns } from "./columns.js";

/**
 * A game of the club's catalog, synced from the client (POST /v1/games).
 * `gameId` is the client's own id, the value events carry in `meta.game_id`.
 */
export const Game = defineEntity({
  name: "Game",
  tableName: "games",
  uniques: [{ properties: ["clubId", "env", "gameId"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    gameId: p.string().length(120),
    name: p.string().length(120),
    provider: p.string().length(60).nullable(),
    category: p.string().length(40).nullable(),
    imageUrl: p.text().nullable(),
    active: p.boolean(),
    updatedAt: p.datetime(),
  },
});
export type Game = InferEntity<typeof Game>;
