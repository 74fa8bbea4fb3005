import { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { sendProblem } from '../requests/client-error';
import { SERVICE_BUSY } from '../errors/error-texts';
import { requestIdOf } from '../logging/request-id';
import { RETRY_AFTER_SECONDS_WHEN_BUSY } from '../errors/service-busy.exception';
import { Backlog, backlogOf, hasTaken } from '../responses/reader-pace';
import { SHED_COUNTER } from './shed-counter';

/** Probes and scrapes: answered whatever the load, so a busy pod is never taken for a dead one. */
const UNCAPPED_PATH = /^\/(?:health|metrics)(?:[/?]|$)/i;

// How often responses are checked for a client that stopped reading.
const SWEEP_EVERY_MS = 1000;

/** What is known of a response being answered. */
interface Open {
  /** The API key it answers, once the key is known. */
  keyId?: string;
  stall?: Stall;
}

interface Stall {
  /** What the client had not taken at the last sweep. */
  backlog: Backlog;
  /** When the client last took any. */
  since: number;
}

/**
 * The requests a pod is answering, capped by MAX_REQUESTS_IN_FLIGHT (a 503 past it, probes and
 * scrapes aside) and, once its key is known, by MAX_REQUESTS_PER_KEY per key, so one key's slow
 * requests cannot take the database pool or the pod from the others. And the write timeout: a
 * response whose client takes none of its waiting bytes for RESPONSE_WRITE_TIMEOUT_MS is cut,
 * so a client that stops reading holds neither the body nor anything behind it for long.
 * Each request is tracked until release(), called once its response closes.
 */
@Injectable()
export class InFlightRequests implements OnApplicationShutdown {
  private readonly open = new Map<ServerResponse, Open>();
  private readonly suspended = new Map<ServerResponse, Open>();
  private readonly perKey = new Map<string, number>();
  private readonly max: number;
  private readonly maxPerKey: number;
  private readonly writeTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    env: LimitsEnv,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    this.max = env.MAX_REQUESTS_IN_FLIGHT;
    this.maxPerKey = env.MAX_REQUESTS_PER_KEY;
    this.writeTimeoutMs = env.RESPONSE_WRITE_TIMEOUT_MS;
    this.sweeper = setInterval(() => this.cutStalled(), SWEEP_EVERY_MS).unref();
  }

  /** Tracks the request until release(), or answers it 503 and returns false. */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (UNCAPPED_PATH.test(req.url ?? '')) return true;
    if (this.open.size >= this.max) {
      this.shed.inc({ reason: 'requests_in_flight' });
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS_WHEN_BUSY));
      sendProblem(res, 503, SERVICE_BUSY, requestIdOf(res));
      return false;
    }
    this.open.set(res, {});
    return true;
  }

  /** Counts a tracked request against its key's cap; false, counting nothing, past it. */
  admitForKey(res: ServerResponse, keyId: string): boolean {
    const open = this.open.get(res);
    if (open === undefined || open.keyId !== undefined) return true;
    const count = this.perKey.get(keyId) ?? 0;
    if (count >= this.maxPerKey) {
      this.shed.inc({ reason: 'key_in_flight' });
      return false;
    }
    this.perKey.set(keyId, count + 1);
    open.keyId = keyId;
    return true;
  }

  /** The key a tracked request counts against, if it has one. */
  keyOf(res: ServerResponse): string | undefined {
    return (this.open.get(res) ?? this.suspended.get(res))?.keyId;
  }

  /** Stops tracking the request: its response has closed. */
  release(res: ServerResponse): void {
    this.suspended.delete(res);
    const keyId = this.open.get(res)?.keyId;
    this.open.delete(res);
    this.uncountKey(keyId);
  }

  /**
   * Stops counting a tracked request, as release() does, until resume(): a long poll while it
   * waits, holding no database connection (docs/operations.md, Limits), so waiting polls
   * cannot take the caps from the requests that read.
   */
  suspend(res: ServerResponse): void {
    const open = this.open.get(res);
    if (open === undefined) return;
    this.open.delete(res);
    this.uncountKey(open.keyId);
    this.suspended.set(res, open);
  }

  /** Counts a suspended request again, past the caps if need be: it was admitted once. */
  resume(res: ServerResponse): void {
    const open = this.suspended.get(res);
    if (open === undefined) return;
    this.suspended.delete(res);
    this.open.set(res, open);
    if (open.keyId !== undefined)
      this.perKey.set(open.keyId, (this.perKey.get(open.keyId) ?? 0) + 1);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private uncountKey(keyId: string | undefined): void {
    if (keyId === undefined) return;
    const left = (this.perKey.get(keyId) ?? 1) - 1;
    if (left === 0) this.perKey.delete(keyId);
    else this.perKey.set(keyId, left);
  }

  private cutStalled(): void {
    const now = Date.now();
    for (const [res, open] of this.open) {
      const { stall } = open;
      const backlog = backlogOf(res);
      if (backlog.pending === 0) {
        open.stall = undefined;
      } else if (!stall || hasTaken(stall.backlog, backlog)) {
        open.stall = { backlog, since: now };
      } else if (now - stall.since >= this.writeTimeoutMs) {
        this.shed.inc({ reason: 'write_timeout' });
        res.destroy();
      } else {
        stall.backlog = backlog;
      }
    }
  }
}
