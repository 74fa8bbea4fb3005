import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Request } from 'express';
import type { ClientRequest, IncomingMessage } from 'node:http';

// Probes and scrapes come every few seconds from every replica: a trace each would drown the rest.
const UNTRACED_PATHS = /^\/(health\/(live|ready)|metrics)\/?(\?|$)/i;

// What the instrumentation reads from headers a caller writes: User-Agent, Host,
// X-Forwarded-Host, X-Forwarded-For and Forwarded. Undefined attributes are dropped.
const FROM_CALLERS_HEADERS = {
  'user_agent.original': undefined,
  'server.address': undefined,
  'server.port': undefined,
  'client.address': undefined,
};

/**
 * Names a finished server span by the route that served it, as the access log names it, and
 * gives it the client's address as Express tells it: the peer's, or with TRUST_PROXY the one
 * the trusted proxies forwarded (never a forwarding header anyone could send). The express
 * instrumentation would name it, but cannot patch express here: NestJS loads it from an ES
 * module, which require hooks do not see.
 */
function nameByRoute(span: Span, request: IncomingMessage | ClientRequest): void {
  const { route, baseUrl, method, ip } = request as Partial<Request>;
  if (typeof ip === 'string') span.setAttribute('client.address', ip);
  if (typeof route?.path !== 'string') return;
  const template = `${baseUrl ?? ''}${route.path}`;
  span.setAttribute('http.route', template);
  span.updateName(`${method} ${template}`);
}

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (endpoint, protocol,
 * service name, sampler, propagators: W3C traceparent by default), exporting traces only:
 * metrics stay on the Prometheus port, logs on stdout. One server span per request, named by
 * its route template (`GET /api/data/clients/:id`), with a child span per PostgreSQL query and
 * per Redis command. What a caller sent stays out: no path or query (ids, and keys a caller may
 * have put there), no header, no query parameter value, no Redis argument.
 */
export function startTracing(): NodeSDK {
  const sdk = new NodeSDK({
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        disableOutgoingRequestInstrumentation: true,
        // The route names the request instead of its path and query.
        startIncomingSpanHook: () => ({
          'url.path': undefined,
          'url.query': undefined,
          ...FROM_CALLERS_HEADERS,
        }),
        applyCustomAttributesOnSpan: nameByRoute,
      }),
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({
        requireParentSpan: true,
        // The command only: its arguments hold the rate-limit key (a caller's key id or IP).
        dbStatementSerializer: (command) => command,
      }),
    ],
  });
  sdk.start();
  return sdk;
}
