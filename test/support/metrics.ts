import { INestApplication } from '@nestjs/common';
import { MetricsServer } from '../../src/metrics/metrics-server';

/** The app's Prometheus text, from its own metrics port (any free one in the tests). */
export async function scrapeMetrics(app: INestApplication): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${app.get(MetricsServer).port}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}
