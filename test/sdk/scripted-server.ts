import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers one request; called with the request already read. */
export type Step = (res: ServerResponse, req: RecordedRequest) => void;

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers the n-th request with the n-th
 * step (the last step repeats), and records every request it received.
 */
export async function startScriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
    requests.push(recorded);
    steps[Math.min(requests.length, steps.length) - 1](res, recorded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Step {
  return (res) => {
    res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": "req_test_1", ...headers });
    res.end(JSON.stringify(body));
  };
}

export const failure = (status: number, code: string, message: string, headers: Record<string, string> = {}): Step =>
  json(status, { error: { code, message } }, headers);

/** Accepts the connection and then drops it without an answer. */
export const dropConnection: Step = (res) => {
  res.socket?.destroy();
};

/** Never answers (until the server is closed). */
export const hang: Step = () => {};

/** Sends the status line and headers, then stalls before the body. */
export const stallBody: Step = (res) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.flushHeaders();
};
