import { Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';

/**
 * How far the change feeds' safe point trails the database's clock, as of the latest feed
 * request: ~0.1 s (the margin) normally, growing while an open write transaction holds the
 * feeds back, +Inf while a writer's start cannot be seen. A feed held back answers
 * `hasMore: false` like one caught up; this is what tells the two apart.
 */
@Injectable()
export class SafePointLag {
  private readonly gauge: Gauge;

  constructor(registry: Registry) {
    this.gauge = new Gauge({
      name: 'change_feed_safe_point_lag_seconds',
      help: 'Seconds the change feeds safe point trails the database clock, at the latest feed request',
      registers: [registry],
    });
  }

  observe(seconds: number): void {
    this.gauge.set(seconds);
  }
}
