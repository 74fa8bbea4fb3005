import { Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics';

function answer(metrics: HttpMetrics, path: string, statusCode: number): void {
  metrics.observe('GET', `/api/data${path}`, statusCode, 3);
}

const countOf = (text: string, labels: string) =>
  Number(new RegExp(`^http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1]);

describe('HttpMetrics', () => {
  it('reports each request once in the count, however many scrapes run at once', async () => {
    const registry = new Registry();
    const metrics = new HttpMetrics(registry);
    for (let n = 0; n < 3; n++) answer(metrics, '/links', 200);
    answer(metrics, '/clients/:id', 404);

    const scrapes = await Promise.all([registry.metrics(), registry.metrics(), registry.metrics()]);
    for (const text of scrapes) {
      expect(countOf(text, 'method="GET",route="/api/data/links",status="200"')).toBe(3);
      expect(countOf(text, 'method="GET",route="/api/data/clients/:id",status="404"')).toBe(1);
    }
    answer(metrics, '/links', 200);
    const later = await registry.metrics();
    expect(countOf(later, 'method="GET",route="/api/data/links",status="200"')).toBe(4);
  });
});
