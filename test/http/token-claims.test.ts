import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { issueParticipantToken, MAX_TOKEN_LIFETIME_SECONDS, verifyParticipantToken } from "../../server/src/http/tokens.js";

/** Participant tokens must carry `exp` (and `iat`) and live at most a day. */
describe("participant token claims", () => {
  const secret = "cs_token_claims_secret_0123456789";
  const now = new Date("2026-11-23T12:00:00Z");
  const iat = Math.floor(now.getTime() / 1000);
  const secretFor = async () => secret;
  const sign = (build: (jwt: SignJWT) => SignJWT) =>
    build(
      new SignJWT({ club: "club_1", env: "test" }).setProtectedHeader({ alg: "HS256" }).setIssuer("clube").setAudience("clube:participant").setSubject("ana"),
    ).sign(new TextEncoder().encode(secret));

  it("accepts an issued token", async () => {
    const { token } = await issueParticipantToken(secret, { clubId: "club_1", env: "test", externalId: "ana" }, 900, now);
    expect(await verifyParticipantToken(token, secretFor, now)).toMatchObject({ ok: true });
  });

  it("refuses a token without exp, without iat, or living longer than the maximum", async () => {
    expect(await verifyParticipantToken(await sign((jwt) => jwt.setIssuedAt(iat)), secretFor, now)).toMatchObject({ ok: false });
    expect(await verifyParticipantToken(await sign((jwt) => jwt.setExpirationTime(iat + 600)), secretFor, now)).toMatchObject({ ok: false });
    const tooLong = await sign((jwt) => jwt.setIssuedAt(iat).setExpirationTime(iat + MAX_TOKEN_LIFETIME_SECONDS + 60));
    expect(await verifyParticipantToken(tooLong, secretFor, now)).toMatchObject({ ok: false });
  });

  it("answers a token verified before only while its secret is still the club's and its times hold", async () => {
    const { token } = await issueParticipantToken(secret, { clubId: "club_1", env: "test", externalId: "bea" }, 900, now);
    expect(await verifyParticipantToken(token, secretFor, now)).toEqual({ ok: true, claims: { clubId: "club_1", env: "test", externalId: "bea" } });
    // Again: the same answer, and the same refusals once the secret is rolled away, the token has ended, or before it was issued.
    expect(await verifyParticipantToken(token, secretFor, now)).toMatchObject({ ok: true });
    expect(await verifyParticipantToken(token, async () => [secret, "cs_other"], now)).toMatchObject({ ok: true });
    expect(await verifyParticipantToken(token, async () => "cs_rolled_secret_0123456789", now)).toEqual({ ok: false, reason: "bad_signature" });
    expect(await verifyParticipantToken(token, async () => null, now)).toEqual({ ok: false, reason: "unknown_club" });
    expect(await verifyParticipantToken(token, secretFor, new Date(now.getTime() + 900_000))).toEqual({ ok: false, reason: "expired" });
    expect(await verifyParticipantToken(token, secretFor, new Date(now.getTime() - 1_000))).toMatchObject({ ok: false });
    expect(await verifyParticipantToken(token, secretFor, new Date(now.getTime() + 899_000))).toMatchObject({ ok: true });
  });
});
