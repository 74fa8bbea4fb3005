import { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { HttpEnv } from '../config/http.env';
import { MetricsServer } from './metrics-server';

describe('MetricsServer', () => {
  const boundTo = async (host?: string) => {
    const env = Object.assign(new HttpEnv(), { METRICS_PORT: 0, METRICS_HOST: host });
    const server = new MetricsServer(new Registry(), env);
    await server.onApplicationBootstrap();
    try {
      const address = (server as unknown as { server: { address(): AddressInfo } }).server;
      return address.address().address;
    } finally {
      await server.onApplicationShutdown();
    }
  };

  it('listens on METRICS_HOST alone when set', async () => {
    expect(await boundTo('127.0.0.1')).toBe('127.0.0.1');
    expect(await boundTo('::1')).toBe('::1');
  });

  // Prometheus scrapes a pod at the pod's own address.
  it('listens on every interface when METRICS_HOST is unset', async () => {
    expect(['::', '0.0.0.0']).toContain(await boundTo(undefined));
  });
});
