import { isTracingEnabled } from './tracing-enabled';

describe('isTracingEnabled', () => {
  const endpoint = 'http://collector:4318';

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'false' }, true],
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_SERVICE_NAME: 'api', OTEL_TRACES_SAMPLER: 'always_on' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_SDK_DISABLED: ' TRUE ' }, false],
  ])('%j: %s', (env, expected) => {
    expect(isTracingEnabled(env)).toBe(expected);
  });
});
