import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { sendProblem } from '../requests/client-error';
import {
  SERVICE_BUSY,
  TOO_MANY_IN_FLIGHT_FOR_KEY,
  TOO_MANY_WAITING_FOR_KEY,
} from '../errors/error-texts';
import { hasChunkedBody } from '../requests/request-size';
import { requestIdOf } from '../logging/request-id';
import { retryAfterWhenBusy } from '../errors/service-busy.exception';
import { Backlog, backlogOf, hasTaken } from '../responses/reader-pace';
import { SHED_COUNTER, ShedReason } from './shed-counter';

/** Probes and scrapes: answered whatever the load, so a busy pod is never taken for a dead one. */
const UNCAPPED_PATH = /^\/(?:health|metrics)(?:[/?]|$)/i;

// How often responses are checked for a client that stopped reading.
const SWEEP_EVERY_MS = 1000;

/**
 * Long polls of the change feeds (a `wait` parameter): they may wait for many seconds, so they
 * are capped on their own, never taking a slot of the ordinary requests.
 */
const LONG_POLL = /^\/api\/data\/changes\/(?:clients|links)\/?\?(?:[^#]*&)?wait=/i;

type Lane = 'requests' | 'polls';

interface Cap {
  max: number;
  maxPerKey: number;
  count: number;
  perKey: Map<string, number>;
  refused: ShedReason;
  refusedForKey: ShedReason;
  tooManyForKey: string;
}

/** What is known of a response being answered; a node of the list the sweeper walks. */
interface Open {
  res: ServerResponse;
  lane: Lane;
  socket: Socket;
  /** The API key it answers, once the key is known. */
  keyId?: string;
  stall?: Stall;
  previous?: Open;
  next?: Open;
}

/** A request received on a connection while an earlier one there is being answered. */
interface Behind {
  req: IncomingMessage;
  res: ServerResponse;
  proceed: () => void;
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
 * requests cannot take the database pool or the pod from the others; long polls likewise by
 * MAX_WAITING_POLLS and MAX_WAITING_POLLS_PER_KEY, apart. A connection's requests are taken one
 * at a time (pipelined ones wait for the answer before theirs), so a connection holds one slot
 * at most. And the write timeout: a response whose client takes none of its waiting bytes for
 * RESPONSE_WRITE_TIMEOUT_MS is cut, so a client that stops reading holds neither the body nor
 * anything behind it for long. Each request is tracked until release(), called once its
 * response closes.
 */
@Injectable()
export class InFlightRequests implements OnApplicationShutdown {
  // A WeakMap and a list, not a Map: a long-lived Map of the responses made every young
  // collection three to four times slower under gets by id.
  private readonly open = new WeakMap<ServerResponse, Open>();
  private newest?: Open;
  private readonly caps: Record<Lane, Cap>;
  /** Connections with a request being answered, and the requests received behind it. */
  private readonly behind = new Map<Socket, Behind[]>();
  private readonly writeTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    env: LimitsEnv,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    const cap = (max: number, maxPerKey: number, refused: ShedReason, forKey: ShedReason) => ({
      max,
      maxPerKey,
      count: 0,
      perKey: new Map<string, number>(),
      refused,
      refusedForKey: forKey,
    });
    this.caps = {
      requests: {
        ...cap(
          env.MAX_REQUESTS_IN_FLIGHT,
          env.MAX_REQUESTS_PER_KEY,
          'requests_in_flight',
          'key_in_flight',
        ),
        tooManyForKey: TOO_MANY_IN_FLIGHT_FOR_KEY,
      },
      polls: {
        ...cap(
          env.MAX_WAITING_POLLS,
          env.MAX_WAITING_POLLS_PER_KEY,
          'waiting_polls',
          'key_waiting_polls',
        ),
        tooManyForKey: TOO_MANY_WAITING_FOR_KEY,
      },
    };
    this.writeTimeoutMs = env.RESPONSE_WRITE_TIMEOUT_MS;
    this.sweeper = setInterval(() => this.cutStalled(), SWEEP_EVERY_MS).unref();
  }

  /**
   * Calls `proceed` once the request is tracked — at once, or when the requests received before
   * it on its connection are answered — or answers it 503.
   */
  admit(req: IncomingMessage, res: ServerResponse, proceed: () => void): void {
    if (UNCAPPED_PATH.test(req.url ?? '')) return proceed();
    const socket = req.socket;
    const queue = this.behind.get(socket);
    if (queue) {
      queue.push({ req, res, proceed });
      return;
    }
    this.behind.set(socket, []);
    this.start(socket, { req, res, proceed });
  }

  /**
   * Counts a tracked request against its key's cap; past it, counting nothing, the problem
   * detail of the 429.
   */
  admitForKey(res: ServerResponse, keyId: string): string | undefined {
    const open = this.open.get(res);
    if (open === undefined || open.keyId !== undefined) return undefined;
    const cap = this.caps[open.lane];
    const count = cap.perKey.get(keyId) ?? 0;
    if (count >= cap.maxPerKey) {
      this.shed.inc({ reason: cap.refusedForKey });
      return cap.tooManyForKey;
    }
    cap.perKey.set(keyId, count + 1);
    open.keyId = keyId;
    return undefined;
  }

  /** The key a tracked request counts against, if it has one. */
  keyOf(res: ServerResponse): string | undefined {
    return this.open.get(res)?.keyId;
  }

  /** Stops tracking the request: its response has closed. Its connection's next one goes on. */
  release(res: ServerResponse): void {
    const open = this.open.get(res);
    if (open === undefined) return this.forget(res);
    this.open.delete(res);
    this.unlink(open);
    const cap = this.caps[open.lane];
    cap.count--;
    if (open.keyId !== undefined) {
      const left = (cap.perKey.get(open.keyId) ?? 1) - 1;
      if (left === 0) cap.perKey.delete(open.keyId);
      else cap.perKey.set(open.keyId, left);
    }
    this.startNext(open.socket);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private start(socket: Socket, { req, res, proceed }: Behind): void {
    const lane: Lane = LONG_POLL.test(req.url ?? '') ? 'polls' : 'requests';
    const cap = this.caps[lane];
    if (cap.count >= cap.max) {
      this.shed.inc({ reason: cap.refused });
      res.setHeader('Retry-After', String(retryAfterWhenBusy()));
      // Kept open where no body can be left unread: a client retries on it, not on a new one.
      const keepOpen = !hasChunkedBody(req) && Number(req.headers['content-length'] ?? 0) === 0;
      sendProblem(res, 503, SERVICE_BUSY, requestIdOf(res), { keepOpen });
      return this.startNext(socket);
    }
    cap.count++;
    const open: Open = { res, lane, socket, next: this.newest };
    if (this.newest) this.newest.previous = open;
    this.newest = open;
    this.open.set(res, open);
    proceed();
  }

  private startNext(socket: Socket): void {
    const queue = this.behind.get(socket);
    const next = queue?.shift();
    // A closed connection's requests are not answered (each ends with its connection).
    if (next === undefined || socket.destroyed) this.behind.delete(socket);
    else this.start(socket, next);
  }

  private unlink(open: Open): void {
    if (open.previous) open.previous.next = open.next;
    else this.newest = open.next;
    if (open.next) open.next.previous = open.previous;
    // A released node holds on to no other.
    open.previous = open.next = undefined;
  }

  /** A request behind another whose connection closed before its turn. */
  private forget(res: ServerResponse): void {
    const socket = res.socket ?? (res.req?.socket as Socket | undefined);
    const queue = socket && this.behind.get(socket);
    const at = queue ? queue.findIndex((behind) => behind.res === res) : -1;
    if (at !== -1) queue!.splice(at, 1);
  }

  private cutStalled(): void {
    const now = Date.now();
    for (let open = this.newest; open;) {
      // Read first: cutting a response releases it, which unlinks it.
      const { res, stall, next } = open;
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
      open = next;
    }
  }
}
