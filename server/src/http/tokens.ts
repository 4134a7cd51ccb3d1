import { SignJWT, decodeJwt, jwtVerify, errors as joseErrors } from "jose";

/**
 * Participant tokens: short-lived HS256 JWTs signed with the club's secret for
 * one environment. The club and environment travel as claims so the verifier
 * knows which secret to check with; a token of another club or environment
 * fails verification because that secret differs.
 */
export interface ParticipantClaims {
  clubId: string;
  env: "test" | "live";
  externalId: string;
}

const ISSUER = "clube";
/** The longest lifetime a token may have (the contract's `ttl_seconds` maximum). */
export const MAX_TOKEN_LIFETIME_SECONDS = 86_400;
const AUDIENCE = "clube:participant";

export async function issueParticipantToken(
  secret: string,
  claims: ParticipantClaims,
  ttlSeconds: number,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const token = await new SignJWT({ club: claims.clubId, env: claims.env })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.externalId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key(secret));
  return { token, expiresAt: new Date(exp * 1000) };
}

/** Why a token was refused; all map to 401 `invalid_token`. */
export type TokenFailure = "malformed" | "expired" | "bad_signature" | "unknown_club";

export async function verifyParticipantToken(
  token: string,
  /** The secrets a token may be signed with: the current one, and during a roll's overlap the previous one. */
  secretFor: (clubId: string, env: "test" | "live") => Promise<string | readonly string[] | null>,
  now: Date,
): Promise<{ ok: true; claims: ParticipantClaims } | { ok: false; reason: TokenFailure }> {
  const known = verifiedTokens.get(token);
  if (known && withinTimes(known, now)) {
    // Verified before with a secret that still verifies it: the signature cannot have changed, and the times hold.
    const found = await secretFor(known.claims.clubId, known.claims.env);
    if (found !== null && (typeof found === "string" ? found === known.secret : found.includes(known.secret))) return { ok: true, claims: known.claims };
  }
  let unverified: ReturnType<typeof decodeJwt>;
  try {
    unverified = decodeJwt(token);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const clubId = unverified.club;
  const env = unverified.env;
  if (typeof clubId !== "string" || (env !== "test" && env !== "live")) return { ok: false, reason: "malformed" };
  const found = await secretFor(clubId, env);
  const secrets = found === null ? [] : typeof found === "string" ? [found] : found;
  if (secrets.length === 0) return { ok: false, reason: "unknown_club" };
  let failure: TokenFailure = "bad_signature";
  for (const secret of secrets) {
    const result = await verifyWith(token, secret, now);
    if (result.ok) {
      const claims: ParticipantClaims = { clubId, env, externalId: result.sub };
      remember(token, { claims, secret, iat: result.iat, exp: result.exp, nbf: result.nbf });
      return { ok: true, claims };
    }
    failure = result.reason;
    // Only a bad signature can be cured by another secret; anything else is final.
    if (failure !== "bad_signature") break;
  }
  return { ok: false, reason: failure };
}

/**
 * Tokens verified before, with the secret that verified them: a client sends the same token on every
 * request of its session, and checking its signature again (WebCrypto, several promises) cost more than
 * the rest of the authentication. A token is answered from here only while that secret is still one the
 * club verifies with and its times (`nbf`, `iat`, `exp`, the longest lifetime) hold at the request's time;
 * otherwise it is verified in full, which gives the same answer or the precise refusal.
 */
interface VerifiedToken {
  claims: ParticipantClaims;
  secret: string;
  iat: number;
  exp: number;
  nbf: number | undefined;
}
const verifiedTokens = new Map<string, VerifiedToken>();
const MAX_VERIFIED_TOKENS = 10_000;

function remember(token: string, verified: VerifiedToken): void {
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) verifiedTokens.clear();
  verifiedTokens.set(token, verified);
}

/** The time checks of verifyWith (jose's, in whole seconds, no tolerance), for a token verified before. */
function withinTimes(token: VerifiedToken, now: Date): boolean {
  const at = Math.floor(now.getTime() / 1000);
  const age = at - token.iat;
  return token.exp > at && age >= 0 && age <= MAX_TOKEN_LIFETIME_SECONDS && (token.nbf === undefined || token.nbf <= at);
}

async function verifyWith(
  token: string,
  secret: string,
  now: Date,
): Promise<{ ok: true; sub: string; iat: number; exp: number; nbf: number | undefined } | { ok: false; reason: TokenFailure }> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
      currentDate: now,
      // A token must say when it ends, and live at most a day: one signed without `exp` (or
      // with a longer life) would otherwise be valid forever.
      requiredClaims: ["exp", "iat", "sub"],
      maxTokenAge: MAX_TOKEN_LIFETIME_SECONDS,
    });
    if (typeof payload.sub !== "string" || payload.sub.length === 0) return { ok: false, reason: "malformed" };
    if (payload.exp! - payload.iat! > MAX_TOKEN_LIFETIME_SECONDS) return { ok: false, reason: "malformed" };
    return { ok: true, sub: payload.sub, iat: payload.iat!, exp: payload.exp!, nbf: payload.nbf };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: "expired" };
    return { ok: false, reason: "bad_signature" };
  }
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}
