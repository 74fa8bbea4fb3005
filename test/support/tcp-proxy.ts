import { createServer, Server, Socket, connect } from 'node:net';
import { Transform } from 'node:stream';

/**
 * A loopback TCP proxy in front of PostgreSQL, so a test can cut the database off (`down`,
 * closed port and dropped connections) and bring it back on the same port (`up`), or drop
 * whatever either side sends while connections stay open (`silent`), as a network that loses
 * its packets does, or hold each packet a while (`delayMs`). Between `down` and `up` it may be pointed elsewhere (`targetPort`), as a
 * failover behind one address is.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Connections taken, since the start. */
  accepted = 0;
  silent = false;
  /** Holds every chunk, either way, this long: a slow network. */
  delayMs = 0;
  /** Everything clients have sent towards the target, as latin1 text (a count of commands). */
  sentToTarget = '';

  constructor(
    private readonly targetHost: string,
    public targetPort: number,
  ) {}

  async up(): Promise<void> {
    this.server = createServer((client) => {
      this.accepted += 1;
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      const record = new Transform({
        transform: (chunk: Buffer, _encoding, callback) => {
          this.sentToTarget += chunk.toString('latin1');
          callback(null, chunk);
        },
      });
      client.pipe(record).pipe(this.gate()).pipe(upstream).pipe(this.gate()).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address && typeof address === 'object') this.port = address.port;
  }

  private gate(): Transform {
    return new Transform({
      transform: (chunk, _encoding, callback) => {
        const pass = () => callback(null, this.silent ? undefined : chunk);
        if (this.delayMs > 0) setTimeout(pass, this.delayMs);
        else pass();
      },
    });
  }

  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.server = undefined;
  }
}
