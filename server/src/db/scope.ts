/** The two environments; a secret key selects one (`cf_test_…` / `cf_live_…`). */
export const ENVS = ["test", "live"] as const;
export type Env = (typeof ENVS)[number];

/** What every tenant-owned row is keyed by: the club and the environment a key selects. */
export interface Scope {
  clubId: string;
  env: Env;
}
