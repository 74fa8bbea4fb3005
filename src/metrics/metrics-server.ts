import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { HttpEnv } from '../config/http.env';

/**
 * The Prometheus scrape, on a port of its own (METRICS_PORT): what it shows (pool saturation,
 * safe-point lag, the Node version) is for the monitoring namespace, which the NetworkPolicy
 * alone lets in, never for the public port. `GET /metrics` and nothing else. On every interface
 * unless METRICS_HOST names one: Prometheus scrapes a pod at its own address, which loopback
 * would hide.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: Server;

  constructor(
    private readonly registry: Registry,
    private readonly http: HttpEnv,
  ) {
    this.server = createServer((req, res) => void this.answer(req, res));
    this.server.headersTimeout = 5_000;
    this.server.requestTimeout = 10_000;
  }

  onApplicationBootstrap(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.http.METRICS_PORT, this.http.METRICS_HOST, () => resolve());
    });
  }

  onApplicationShutdown(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** The port it listens on: METRICS_PORT, or the one chosen for 0 (the tests). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found\n');
      return;
    }
    const body = await this.registry.metrics();
    res.writeHead(200, { 'Content-Type': this.registry.contentType, 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
