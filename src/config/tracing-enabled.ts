/**
 * Whether traces are exported (docs/operations.md, Tracing): an OTLP endpoint is set, for all
 * signals or for traces, and OTEL_SDK_DISABLED is not `true` (any case, as the SDK reads it).
 * Read before the app is built, so it imports nothing.
 */
export function isTracingEnabled(env: Record<string, string | undefined>): boolean {
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}
