export * from "./editions.js";
export * from "./ranking.js";
export * from "./scoring.js";
export * from "./settlement.js";
