import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;
type Label = (typeof LABELS)[number];

const DURATION = 'http_request_duration_seconds';

// Node's parser accepts some thirty methods (PROPFIND, MKCALENDAR, …): each would be a series
// of every route and status, at any caller's choosing. The rest are counted as OTHER.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Request count and duration by method, route template and status. */
@Injectable()
export class HttpMetrics {
  private readonly duration: Histogram<Label>;

  constructor(registry: Registry) {
    const duration = new Histogram({
      name: DURATION,
      help: 'HTTP request duration in seconds, by method, route template and status',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.duration = duration;
    // The count of requests is the histogram's: read from it at each scrape rather than counted
    // a second time on every request. Set whole once read, so that no scrape, even one running
    // beside another, sees a count lower than an earlier one.
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests, by method, route template and status (or aborted)',
      labelNames: LABELS,
      registers: [registry],
      async collect() {
        const { values } = await duration.get();
        this.reset();
        for (const { metricName, labels, value } of values) {
          if (metricName === `${DURATION}_count`) this.inc(labels, value);
        }
      },
    });
  }

  /**
   * Counts a request once its connection is done with it, by its route template (routeOf): by
   * the status sent in full, or as `aborted` when the response was cut short (the client gone,
   * a shutdown).
   */
  observe(method: string, route: string, status: number | 'aborted', durationMs: number): void {
    this.duration.observe(
      { method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) },
      durationMs / 1000,
    );
  }
}
