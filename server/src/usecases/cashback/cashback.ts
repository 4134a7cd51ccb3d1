import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { schemaValidators } from "../../../../generated/validators.js";
import type { components } from "../../../../generated/types.js";
import { CashbackProgram as CashbackProgramRow } from "../../db/entities/index.js";
import { cashbackProgramView, type CashbackProgram, type CashbackProgramView } from "../../engine/cashback.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { validationFailed } from "../shared/errors.js";
import { checkSchema } from "../shared/schema-check.js";

export type { CashbackProgram, CashbackProgramView };
export type CashbackProgramPatch = components["schemas"]["CashbackProgramUpdate"];

/** The program of a club that never set one: off, claimed within 7 days, 5% to 20% from the first cent of loss. */
export const DEFAULT_CASHBACK_PROGRAM: Readonly<CashbackProgram> = Object.freeze({
  enabled: false,
  mode: "claim",
  hour: 10,
  claim_days: 7,
  min_loss_minor: 0,
  min_pct: 5,
  max_pct: 20,
  tiers: [],
  welcome: { enabled: false, pct: 0, max_minor: 0 },
  text: {},
  currency: "BRL",
});

/** The cashback program in force, money in cents: the stored one, or the defaults. `cashbackProgramView` gives GET /v1/cashback's shape. */
export async function getCashbackProgram(db: Database, scope: Scope): Promise<CashbackProgram> {
  const row = await db.em().findOne(CashbackProgramRow, scope);
  return row ? storedProgram(row.program) : (structuredClone(DEFAULT_CASHBACK_PROGRAM) as CashbackProgram);
}

/**
 * A stored program in its stored names. Programs saved before the
 * (money fields end in `_minor`) carry `min_loss` and `welcome.max`: read them
 * under the new names so no stored program needs rewriting.
 */
function storedProgram(stored: unknown): CashbackProgram {
  const program = { ...(stored as Record<string, unknown>) };
  if ("min_loss" in program) {
    program.min_loss_minor ??= program.min_loss;
    delete program.min_loss;
  }
  const welcome = { ...(program.welcome as Record<string, unknown>) };
  if ("max" in welcome) {
    welcome.max_minor ??= welcome.max;
    delete welcome.max;
  }
  program.welcome = welcome;
  // Programs saved before the program named its currency paid back BRL bets (the events' default).
  program.currency ??= "BRL";
  program.tiers = ((program.tiers ?? []) as Record<string, unknown>[]).map(({ min_loss, ...band }) => ({ min_loss_minor: min_loss, ...band }));
  return program as unknown as CashbackProgram;
}

/**
 * PUT /v1/cashback: applies a partial update and answers the whole program; it
 * takes effect at once (the program is not part of the versioned
 * configuration). Each field sent replaces the current one (`tiers` and `text`
 * as a whole), except `welcome`, whose fields are merged, so
 * `{welcome: {enabled: true}}` keeps its percentage and cap. The merged
 * program is checked again as a whole; 422 names the field from `body`.
 */
export async function updateCashbackProgram(db: Database, scope: Scope, patch: CashbackProgramPatch, now = new Date()): Promise<CashbackProgramView> {
  try {
    return await applyCashbackPatch(db, scope, patch, now);
  } catch (error) {
    // Two first-ever updates at once both create the scope's row: the loser applies its patch to the winner's row.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return applyCashbackPatch(db, scope, patch, now);
  }
}

function applyCashbackPatch(db: Database, scope: Scope, patch: CashbackProgramPatch, now: Date): Promise<CashbackProgramView> {
  return db.em().transactional(async (em) => {
    const row = await em.findOne(CashbackProgramRow, scope);
    const current = row ? storedProgram(row.program) : DEFAULT_CASHBACK_PROGRAM;
    const program = { ...current, ...patch, welcome: { ...current.welcome, ...patch.welcome } } as CashbackProgram;
    // The patch's fields were checked one by one; the merged whole is checked in the shape it is served in.
    const view = checkSchema<CashbackProgramView>(schemaValidators.CashbackProgram, cashbackProgramView(program), "body");
    const problem = cashbackInconsistency(program);
    if (problem) throw validationFailed(problem);
    if (row) {
      row.program = program;
      row.updatedAt = now;
    } else {
      em.create(CashbackProgramRow, { id: newId("cbp"), ...scope, program, updatedAt: now });
    }
    return view;
  });
}

/**
 * What the schema cannot say: the base percentage above the cap, or bands not
 * in strictly ascending loss. (A band above the cap is allowed: it pays the cap.)
 */
function cashbackInconsistency(program: CashbackProgram): string | null {
  if (program.min_pct > program.max_pct) return `body.min_pct (${program.min_pct}) must be <= body.max_pct (${program.max_pct})`;
  const unordered = program.tiers.findIndex((band, i) => i > 0 && band.min_loss_minor <= program.tiers[i - 1].min_loss_minor);
  return unordered < 0
    ? null
    : `body.tiers[${unordered}].min_loss_minor must be greater than body.tiers[${unordered - 1}].min_loss_minor (bands ascend by loss)`;
}
