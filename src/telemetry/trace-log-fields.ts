import { context, trace } from '@opentelemetry/api';

const NONE = {};

/**
 * A pino mixin: the ids of the active span, so each log line of a traced request leads to its
 * trace. The access line is written when the response closes, in the request's context too.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return NONE;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
