import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the receiver saw it, with its own verdict on the signature. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  signatureValid: boolean;
}

/** How the receiver answers the next requests; the default is 200. */
export type Reply = { status: number; location?: string } | { hang: true };

/**
 * A client's webhook endpoint on 127.0.0.1: it checks every signature the way
 * the seed tells clients to (HMAC-SHA256 over `t.rawBody`, constant-time
 * compare, 300 s tolerance against the receiver's own clock), written here
 * independently of server/src/webhooks/signature.ts.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private replies: Reply[] = [];
  private readonly open = new Set<ServerResponse>();
  private server!: Server;

  constructor(
    private readonly secret: string,
    private readonly receiverNow: () => Date = () => new Date(),
  ) {}

  async start(port = 0): Promise<this> {
    this.server = createServer((request, response) => void this.onRequest(request, response));
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = "/hooks"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Queue the answers of the next requests, in order; afterwards 200 again. */
  replyWith(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  /** Answers every request left hanging so far with `status`, so a test decides when an attempt ends. */
  answerHanging(status: number): void {
    for (const response of this.open) {
      response.statusCode = status;
      response.end("ok");
    }
    this.open.clear();
  }

  async stop(): Promise<void> {
    for (const response of this.open) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const header = request.headers["x-clube-signature"];
    this.requests.push({
      path: request.url ?? "",
      headers: request.headers,
      body,
      signatureValid: typeof header === "string" && this.signatureValid(body, header),
    });
    const reply = this.replies.shift() ?? { status: 200 };
    if ("hang" in reply) {
      this.open.add(response);
      return;
    }
    if (reply.location) response.setHeader("Location", reply.location);
    response.statusCode = reply.status;
    response.end("ok");
  }

  private signatureValid(body: string, header: string): boolean {
    const parts = header.split(",");
    const t = parts[0]?.startsWith("t=") ? Number(parts[0].slice(2)) : NaN;
    if (!Number.isInteger(t)) return false;
    if (Math.abs(Math.floor(this.receiverNow().getTime() / 1000) - t) > 300) return false;
    const expected = Buffer.from(createHmac("sha256", this.secret).update(`${t}.${body}`).digest("hex"));
    return parts
      .slice(1)
      .filter((part) => part.startsWith("v1="))
      .some((part) => {
        const given = Buffer.from(part.slice(3));
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
  }
}
