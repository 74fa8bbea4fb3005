import { Injectable } from '@nestjs/common';
import { Request, Response } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import { routeOf } from '../logging/access-log';

const LABELS = ['method', 'route', 'status'] as const;

/** Request count and duration by method, route template and status. */
@Injectable()
export class HttpMetrics {
  private readonly requests: Counter<(typeof LABELS)[number]>;
  private readonly duration: Histogram<(typeof LABELS)[number]>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: LABELS,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by method, route template and status',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /** Counts a request when its response ends, by labels read then, once routing has happened. */
  track(req: Request, res: Response): void {
    const startedAt = performance.now();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
      this.requests.inc(labels);
      this.duration.observe(labels, (performance.now() - startedAt) / 1000);
    });
  }
}
