import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { PoolClient, QueryConfig, QueryResult } from 'pg';
import { DatabaseEnv } from '../config/database.env';
import { timeDatabase } from '../timing/server-timing';
import { ignoreBreak } from './broken-connection';
import { DatabasePools, Release } from './pools';
import { DATABASE_UNAVAILABLE, isConnectionFailure } from './database-unavailable';
import { withinDeadline } from './within-deadline';

const MAX_PREPARED_STATEMENTS = 200;
/**
 * How long after its deadline a query that has not answered is given up with its connection.
 * statement_timeout cancels it in the database at the deadline, and the cancellation's error
 * comes back at once on a live connection. (pg's own per-query read timeout, query_timeout,
 * would do the same, but its timer per query keeps each query's rows from dying young, which
 * under a small heap cost a third of the throughput of list pages: docs/performance.md.)
 */
export const ABANDON_AFTER_MS = 1000;
const CONNECTION_UNANSWERED = 'The database did not answer on this connection';

type StatementConfig = Readonly<Required<Pick<QueryConfig, 'name' | 'text'>>>;

// Why the deadline passed, for the log line of the 503 (ProblemDetailsFilter), never the body.
const WAITED_FOR_CONNECTION = 'no pooled connection within DATABASE_TIMEOUT_MS';
const WAITED_FOR_ANSWER = 'no answer within DATABASE_TIMEOUT_MS';
const unavailable = (why: string) =>
  new ServiceUnavailableException(DATABASE_UNAVAILABLE, { cause: new Error(why) });

export interface ReadOptions {
  /**
   * Run on the primary even when replicas are configured: what a replica lags on matters, or
   * the statement writes (a key's last use, the one write the API makes at run time).
   */
  primary?: boolean;
  /**
   * Prepare the statement once per connection and let PostgreSQL keep its plan: for statements
   * whose best plan is the same whatever their parameters (a lookup by primary key, a page read
   * straight from an index, a statement without parameters). Any other statement is sent
   * unnamed and planned for its own parameters at every execution: a plan kept for any
   * parameters can read a whole table to join one page.
   */
  prepared?: boolean;
}

/** A query inside DatabaseReader.inSnapshot: its rows, within DATABASE_TIMEOUT_MS. */
export type SnapshotQuery = <T>(text: string, params: unknown[]) => Promise<T>;

/**
 * How the API queries its database at run time, each query within DATABASE_TIMEOUT_MS: reads
 * where reads belong — a read replica when DATABASE_REPLICA_URLS configures some (TypeORM sends
 * raw queries to the primary unless asked), else the primary — and, with `primary`, what must
 * run on the primary.
 */
@Injectable()
export class DatabaseReader {
  private readonly deadlineMs: number;
  private readonly statements = new Map<string, StatementConfig>();
  private readonly isPreparing: boolean;

  constructor(
    private readonly pools: DatabasePools,
    env: DatabaseEnv,
  ) {
    this.deadlineMs = env.DATABASE_TIMEOUT_MS;
    this.isPreparing = env.DATABASE_PREPARED_STATEMENTS !== false;
  }

  /**
   * docs/operations.md, Configuration: the wait for a pooled connection and the query together never exceed
   * DATABASE_TIMEOUT_MS, whatever the pool's queue; past it the caller gets a 503. A query
   * given up on before it got a connection is not run; one already running still releases its
   * connection, and statement_timeout cuts it in the database. A connection whose query still
   * has not answered ABANDON_AFTER_MS later is one the database no longer answers on (a network
   * that dropped it silently): it is handed back to be dropped, so it never holds a pool slot.
   */
  query<T>(text: string, params: unknown[], options: ReadOptions = {}): Promise<T> {
    const statement = options.prepared ? this.statement(text) : undefined;
    return timeDatabase(this.read<T>(text, params, options, statement));
  }

  private read<T>(
    text: string,
    params: unknown[],
    options: ReadOptions,
    statement: StatementConfig | undefined,
  ): Promise<T> {
    // Whichever comes first, the read or the deadline, settles the answer. Callbacks rather than
    // awaits from the pool to the rows: this runs for every request, and each hop costs.
    return new Promise<T>((resolve, reject) => {
      let expired = false;
      // pg answers (null, result) or (error); set once the query is sent.
      let done: ((failure: Error | null, result?: QueryResult) => void) | undefined;
      const timer = setTimeout(() => {
        expired = true;
        reject(unavailable(done ? WAITED_FOR_ANSWER : WAITED_FOR_CONNECTION));
        if (done) setTimeout(done, ABANDON_AFTER_MS, new Error(CONNECTION_UNANSWERED)).unref();
      }, this.deadlineMs);
      this.pools.connect(options.primary ? 'primary' : 'read', (error, connection, release) => {
        if (error || !connection || !release) {
          clearTimeout(timer);
          return reject(error);
        }
        // Its caller already has the 503: the connection goes to a live request instead.
        if (expired) return release();
        let settled = false;
        // A connection that breaks while checked out emits 'error' (fatal when unheard); its
        // query fails too, and that failure is what this read reports.
        connection.on('error', ignoreBreak);
        done = (failure, result) => {
          if (settled) return;
          settled = true;
          connection.removeListener('error', ignoreBreak);
          // Given an error, the pool drops the connection: only when the connection itself may
          // be broken, not for a statement the server refused or cancelled.
          release(failure && isConnectionFailure(failure) ? failure : undefined);
          clearTimeout(timer);
          if (failure) reject(failure);
          else resolve(result?.rows as T);
        };
        // This runs inside pg's pool callback, where a throw would be uncaught: a client that
        // cannot take the query fails this read like one that broke.
        try {
          if (statement) connection.query(Object.create(statement), params, done);
          else connection.query(text, params, done);
        } catch (thrown) {
          done(thrown instanceof Error ? thrown : new Error(String(thrown)));
        }
      });
    });
  }

  /**
   * Runs `read` with queries that all see the database as of one moment: one connection, one
   * REPEATABLE READ, READ ONLY transaction (where reads belong, as `query`). For an answer made
   * of several statements whose rows must fit together. The wait for the connection and the
   * BEGIN get DATABASE_TIMEOUT_MS together, as a query's wait and run do, then each statement
   * its own; after a failed statement the connection is dropped, never handed back
   * mid-transaction.
   */
  async inSnapshot<T>(read: (query: SnapshotQuery) => Promise<T>): Promise<T> {
    // Each statement counts as the request's database time, not what `read` does between them.
    const { connection, release } = await timeDatabase(this.beginSnapshot());
    let failure: Error | undefined;
    try {
      const result = await read(
        async <R>(text: string, params: unknown[]) =>
          (await timeDatabase(this.withinDeadline(connection.query(text, params)))).rows as R,
      );
      // Nothing was written: a COMMIT that fails costs the connection, not the answer.
      await timeDatabase(this.withinDeadline(connection.query('COMMIT'))).catch((error: Error) => {
        failure = error;
      });
      return result;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      connection.removeListener('error', ignoreBreak);
      release(failure);
    }
  }

  /**
   * A connection where reads belong, its snapshot's transaction begun, within
   * DATABASE_TIMEOUT_MS; a connection that comes or begins later is handed back or dropped.
   */
  private beginSnapshot(): Promise<{ connection: PoolClient; release: Release }> {
    let expired = false;
    let connected = false;
    const begun = new Promise<{ connection: PoolClient; release: Release }>((resolve, reject) =>
      this.pools.connect('read', (error, connection, release) => {
        if (error || !connection || !release) return reject(error);
        if (expired) return release();
        connected = true;
        // As in `query`: a connection that breaks fails its statement, which is what is reported.
        connection.on('error', ignoreBreak);
        const drop = (reason: Error) => {
          connection.removeListener('error', ignoreBreak);
          release(reason);
          reject(reason);
        };
        connection
          .query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
          .then(
            () =>
              expired ? drop(unavailable(WAITED_FOR_ANSWER)) : resolve({ connection, release }),
            drop,
          );
      }),
    );
    return this.withinDeadline(begun, () => {
      expired = true;
      return connected ? WAITED_FOR_ANSWER : WAITED_FOR_CONNECTION;
    });
  }

  /** `work`'s answer, or a 503 once DATABASE_TIMEOUT_MS has passed without one. */
  private withinDeadline<T>(work: Promise<T>, waitedFor = () => WAITED_FOR_ANSWER): Promise<T> {
    return withinDeadline(work, this.deadlineMs, () => unavailable(waitedFor()));
  }

  /**
   * A prepared query text becomes a named statement, parsed once per connection; after five
   * executions PostgreSQL keeps its generic plan where that costs no more than planning each
   * time. Parsing, analysing and planning cost the database more than the get by id or the
   * page they serve.
   * The texts come from the query builders, so they are few; past a bound (a builder gone
   * wrong) a query runs unnamed rather than fill every connection with statements.
   * DATABASE_PREPARED_STATEMENTS=false runs every query unnamed, for a pooler that hands each
   * transaction another connection.
   *
   * Each execution passes an empty object inheriting the statement's name and text: pg copies
   * every own property of a query config, property by property, before reading it (the
   * largest cost of a get by id in pg), and reads inherited ones as well.
   */
  private statement(text: string): StatementConfig | undefined {
    if (!this.isPreparing) return undefined;
    let statement = this.statements.get(text);
    if (statement === undefined && this.statements.size < MAX_PREPARED_STATEMENTS) {
      statement = { name: `api_${this.statements.size + 1}`, text };
      this.statements.set(text, statement);
    }
    return statement;
  }
}
