import { get, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import express, { Request, Response } from 'express';
import { useIfNoneMatchFreshness } from '../../src/responses/caching';

export interface Received {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Whether the body ended as HTTP says a complete one does. */
  complete: boolean;
}

export interface RenderServer {
  url: string;
  server: Server;
  /** Resolves once `requests` requests in all have reached the server since the last reset. */
  joined(requests: number): Promise<void>;
  reset(): void;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A server that hands every request to `serve` (a render's serve, as the test drives it). */
export async function renderServer(
  serve: (req: Request, res: Response) => Promise<void>,
): Promise<RenderServer> {
  let arrivals = 0;
  const app = express();
  useIfNoneMatchFreshness(app.request);
  app.get('/', (req: Request, res: Response) => {
    arrivals += 1;
    res.type('application/json');
    serve(req, res).catch(() => (res.headersSent ? res.destroy() : res.status(500).end('failed')));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    server,
    joined: async (requests) => {
      while (arrivals < requests) await tick();
    },
    reset: () => (arrivals = 0),
  };
}

/** The response as received; a connection cut before any response is status 0, incomplete. */
export function fetchRaw(url: string, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete,
        }),
      );
    }).on('error', () =>
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), complete: false }),
    );
  });
}
