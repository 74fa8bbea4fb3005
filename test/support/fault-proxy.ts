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

/** Inserts `count` clients over 20 links in one statement, with createdAt ties in fours. */
export async function insertManyClients(
  dataSource: { query: (sql: string, parameters?: unknown[]) => Promise<unknown> },
  count: number,
): Promise<void> {
  await dataSource.query(
    `INSERT INTO links (id, created_at, updated_at)
     SELECT 'link-' || g, '2026-01-01'::timestamptz, '2026-01-01'::timestamptz
     FROM generate_series(1, 20) g`,
  );
  await dataSource.query(
    `INSERT INTO clients (id, link_id, status, is_deleted, created_at, updated_at)
     SELECT 'client-' || lpad(g::text, 5, '0'), 'link-' || (g % 20 + 1),
            (ARRAY['new', 'connected', 'legacy'])[g % 3 + 1], g % 7 = 0,
            '2026-02-01'::timestamptz + (g / 4) * interval '1 second',
            '2026-03-01'::timestamptz + g * interval '1 millisecond'
     FROM generate_series(1, $1::int) g`,
    [count],
  );
}
