import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export type Fault = 503 | 429 | 'reset';

export interface ProxiedRequest {
  number: number;
  url: string;
  at: number;
  fault?: Fault;
}

/**
 * A loopback HTTP proxy in front of the API that answers chosen requests itself, as an
 * overloaded or rate-limiting deployment would: a 503 or a 429 problem with `Retry-After`, or
 * a connection cut before any answer. Every other request is passed through unchanged.
 */
export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private server?: Server;

  constructor(
    private readonly target: string,
    private readonly faultFor: (number: number) => Fault | undefined,
    private readonly retryAfterSeconds = 1,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const number = this.requests.length + 1;
      const fault = this.faultFor(number);
      this.requests.push({ number, url: req.url ?? '', at: Date.now(), fault });
      if (fault === 'reset') return req.socket.destroy();
      if (fault) {
        res.writeHead(fault, {
          'Content-Type': 'application/problem+json',
          'Retry-After': String(this.retryAfterSeconds),
        });
        return res.end(JSON.stringify({ type: 'about:blank', status: fault, detail: 'injected' }));
      }
      const upstream = httpRequest(
        new URL(req.url ?? '/', this.target),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
