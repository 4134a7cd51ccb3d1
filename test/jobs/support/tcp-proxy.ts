import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP relay in front of the broker, so a test can make the broker vanish
 * for the client — drop every open connection, or refuse new ones for a
 * while — without touching the shared RabbitMQ other suites are using.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private listenPort = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = "127.0.0.1",
  ) {}

  get port(): number {
    return this.listenPort;
  }

  /** Connections accepted so far, to check that a client really reconnected. */
  accepted = 0;

  /** Starts accepting (again, on the same port after `goDown`); does nothing when already up. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      this.accepted += 1;
      const upstream = connect(this.targetPort, this.targetHost);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.pipe(to);
        from.on("error", () => to.destroy());
        from.on("close", () => {
          this.sockets.delete(from);
          to.destroy();
        });
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.listenPort, "127.0.0.1", resolve);
    });
    this.listenPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Cuts every open connection, as a broker restart or a network failure would. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Refuses new connections and cuts the open ones until `up()`. */
  async goDown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
