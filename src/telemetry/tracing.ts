import type { NodeSDK } from '@opentelemetry/sdk-node';
import { isTracingEnabled } from '../config/tracing-enabled';

type LogFields = () => Record<string, string>;

/*
 * Tracing (docs/operations.md, Tracing). main.ts imports this file before anything else: the
 * instrumentations patch pg, ioredis and http as they are first required, so the SDK must start
 * before them, synchronously. When tracing is off, no module of the SDK or the instrumentations
 * is loaded, hence `require` rather than imports.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const isOn = isTracingEnabled(process.env);
const sdk: NodeSDK | undefined = isOn
  ? (require('./start-tracing') as typeof import('./start-tracing')).startTracing()
  : undefined;

/** With tracing on, the trace and span ids of the work under way, for its log lines. */
export const traceLogFields: LogFields | undefined = isOn
  ? (require('./trace-log-fields') as typeof import('./trace-log-fields')).traceLogFields
  : undefined;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Sends the spans still batched; at shutdown, after the app has closed. */
export function stopTracing(): Promise<void> {
  return sdk?.shutdown() ?? Promise.resolve();
}
