// A TypeScript consumer of both packages, type-checked under moduleResolution
// nodenext and bundler: the published declarations must resolve and be precise.
import { Clube, ClubeError, type ClubeErrorCode, type Delivery, type WebhookEvent } from "@clube/node";
import { createClubeBrowser, type ClubeBrowser, type ParticipantProfile } from "@clube/browser";

export async function server(clube: Clube): Promise<string[]> {
  const ids: string[] = [];
  for await (const delivery of clube.deliveries.list({ status: "pending" })) {
    const d: Delivery = delivery;
    ids.push(d.id);
  }
  const queued = await clube.events.send({ participant: "u", type: "deposit.confirmed", amount: "10.00" }, { async: true, idempotencyKey: "k", timeoutMs: 5_000 });
  const ok: true = queued.queued;
  const requestId: string | null = queued.lastResponse.requestId;
  try {
    await clube.participants.get("nobody", { signal: AbortSignal.timeout(1_000), headers: { "X-Trace": "1" } });
  } catch (err) {
    if (err instanceof ClubeError) {
      const code: ClubeErrorCode = err.code;
      const param: string | null = err.param;
      void [code, param, err.retryable, err.requestId];
    }
  }
  const event: WebhookEvent = clube.webhooks.verify("{}", "t=1,v1=00", "whsec_x");
  void [ok, requestId, event];
  return ids;
}

export async function browser(): Promise<string> {
  const client: ClubeBrowser = createClubeBrowser({ baseUrl: "https://clube.example.com", getToken: async () => "token" });
  const profile: ParticipantProfile = await client.me.profile();
  // @ts-expect-error: the browser client has no server-side resources
  void client.participants;
  return profile.external_id;
}
