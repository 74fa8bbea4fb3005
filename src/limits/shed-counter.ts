import { Counter, Registry } from 'prom-client';

/** Why a request was refused for load: a cap of docs/operations.md, Limits. */
export type ShedReason =
  | 'requests_in_flight'
  | 'key_in_flight'
  | 'count'
  | 'deep_page'
  | 'list_render'
  | 'write_timeout'
  | 'waiting_polls'
  | 'key_waiting_polls'
  | 'poll_reads';

export const SHED_COUNTER = Symbol('SHED_COUNTER');

export const shedCounter = (registry: Registry) =>
  new Counter<'reason'>({
    name: 'http_requests_shed_total',
    help: 'Requests refused (503, or 429 for one key) or responses cut, by the cap reached',
    labelNames: ['reason'],
    registers: [registry],
  });
