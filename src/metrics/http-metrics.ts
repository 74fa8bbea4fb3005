import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;
type Label = (typeof LABELS)[number];

const DURATION = 'http_request_duration_seconds';

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
      help: 'HTTP requests answered, by method, route template and status',
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

  /** Counts a request answered in full, by its route template (routeOf), once it has been sent. */
  observe(method: string, route: string, status: number, durationMs: number): void {
    this.duration.observe({ method, route, status: String(status) }, durationMs / 1000);
  }
}
