import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { Gauge, Registry } from 'prom-client';
import { DatabaseEnv, LISTENER_OFF } from '../config/database.env';
import { withLibpqSslMode } from '../database/ssl-mode';
import { Feed } from './changes.repository';

const FEEDS: readonly string[] = ['links', 'clients'] satisfies Feed[];
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** Called with the feed whose table changed, or with no feed when any may have. */
export type ChangeListener = (feed?: Feed) => void;

/**
 * The one session of this pod that LISTENs for changes to links and clients, outside the
 * request pool (DATABASE_LISTEN_URL, else DATABASE_URL; `off`: none). It reconnects with
 * back-off; while it is down, `isListening` is false and waiting polls re-check on an
 * interval. Going down or coming back calls every listener without a feed: notifications may
 * have been missed.
 */
@Injectable()
export class ChangeNotifications implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeNotifications.name);
  private readonly listeners = new Set<ChangeListener>();
  private readonly url?: string;
  private readonly timeoutMs: number;
  private readonly up: Gauge;
  private client?: Client;
  private retryMs = FIRST_RETRY_MS;
  private retry?: NodeJS.Timeout;
  private isStopped = false;
  private hasFailed = false;
  isListening = false;

  constructor(env: DatabaseEnv, registry: Registry) {
    const url = env.DATABASE_LISTEN_URL ?? env.DATABASE_URL;
    if (url !== LISTENER_OFF) this.url = withLibpqSslMode(url, 'DATABASE_LISTEN_URL');
    this.timeoutMs = env.DATABASE_TIMEOUT_MS;
    this.up = new Gauge({
      name: 'change_feed_listener_up',
      help: '1 while this pod listens for the change feeds notifications, else 0',
      registers: [registry],
    });
    this.up.set(0);
  }

  /** Calls `listener` on each notified change; returns what stops it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first connection is tried before the pod serves; should it fail, it is retried. */
  onApplicationBootstrap(): Promise<void> {
    return this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.isStopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.url === undefined || this.isStopped) return;
    const client = new Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.timeoutMs,
      application_name: 'links-clients-api-listener',
      keepAlive: true,
    });
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', ({ payload }) => {
      if (payload !== undefined && FEEDS.includes(payload)) this.tell(payload as Feed);
    });
    try {
      await client.connect();
      // The channel migration NotifyFeedChanges notifies on, once per writing statement.
      await client.query('LISTEN feed_changes');
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.client !== client) return;
    if (this.hasFailed) this.logger.log('listening for changes again');
    this.hasFailed = false;
    this.isListening = true;
    this.retryMs = FIRST_RETRY_MS;
    this.up.set(1);
    this.tell();
  }

  private lost(client: Client, error?: Error): void {
    if (this.client !== client || this.isStopped) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    // One line when the listener is lost (or cannot start), one when it is back.
    if (this.isListening || !this.hasFailed) {
      this.logger.warn(
        `not listening for changes (${error?.message ?? 'connection ended'}); ` +
          'retrying with back-off, waiting polls re-check meanwhile',
      );
    }
    this.hasFailed = true;
    const wasListening = this.isListening;
    this.isListening = false;
    this.up.set(0);
    this.retry = setTimeout(() => void this.connect(), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    if (wasListening) this.tell();
  }

  private tell(feed?: Feed): void {
    for (const listener of this.listeners) listener(feed);
  }
}
