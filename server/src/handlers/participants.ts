import { issueParticipantToken } from "../http/tokens.js";
import { ApiError } from "../usecases/shared/errors.js";
import { ensureParticipant, getProfile, getProgress, getProgressBatch, upsertParticipant } from "../usecases/participants/index.js";
import { listLedger, renameParticipant } from "../usecases/participants/index.js";
import { listFairSpins } from "../usecases/wheel/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type ParticipantOps =
  | "Participants_upsert"
  | "Participants_get"
  | "Participants_progress"
  | "Participants_progressBatch"
  | "Participants_createToken"
  | "Participants_rename"
  | "WheelAudit_list"
  | "ParticipantLedger_list";

/** The seed: progress may be cached privately for 15 seconds. */
const PROGRESS_CACHE_CONTROL = "private, max-age=15";

export function participantHandlers({ db, clock, auth }: Services): HandlerSet<ParticipantOps> {
  return {
    async Participants_upsert(req, ctx) {
      return { status: 200, body: await upsertParticipant(db, scopeOf(ctx), req.body, clock.now()) };
    },
    async ParticipantLedger_list(req, ctx) {
      return { status: 200, body: await listLedger(db, scopeOf(ctx), req.path.external_id, req.query) };
    },
    async Participants_get(req, ctx) {
      return { status: 200, body: await getProfile(db, scopeOf(ctx), req.path.external_id) };
    },
    async Participants_progress(req, ctx) {
      const body = await getProgress(db, scopeOf(ctx), req.path.external_id);
      return { status: 200, body, headers: { "Cache-Control": PROGRESS_CACHE_CONTROL } };
    },
    async Participants_progressBatch(req, ctx) {
      return { status: 200, body: await getProgressBatch(db, scopeOf(ctx), req.body.external_ids) };
    },
    async Participants_createToken(req, ctx) {
      const scope = scopeOf(ctx);
      const externalId = req.path.external_id;
      const secret = await auth.signingSecret(scope.clubId, scope.env);
      if (!secret) {
        throw new ApiError(500, "signing_secret_missing", "This club has no participant-token signing secret for this environment; contact support.");
      }
      const now = clock.now();
      const participant = await ensureParticipant(db, scope, externalId, { now });
      const ttl = req.body?.ttl_seconds ?? 900;
      const { token, expiresAt } = await issueParticipantToken(secret, { ...scope, externalId }, ttl, now);
      const progress = await getProgress(db, scope, externalId);
      return {
        status: 200,
        body: { token, expires_at: expiresAt.toISOString(), participant_id: participant.id, level: progress.level, xp: progress.xp },
      };
    },
    async Participants_rename(req, ctx) {
      return { status: 200, body: await renameParticipant(db, scopeOf(ctx), req.path.external_id, req.body, clock.now()) };
    },
    // The provably fair wheel's audit of one participant, for operators and regulators (secret key).
    async WheelAudit_list(req, ctx) {
      return { status: 200, body: await listFairSpins(db, scopeOf(ctx), req.path.external_id, req.query) };
    },
  };
}
