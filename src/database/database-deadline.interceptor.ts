import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Observable, throwError, timeout } from 'rxjs';
import { Env } from '../config/env';

/**
 * CONTRACT §5: DATABASE_TIMEOUT_MS bounds the whole wait for the database — a pooled
 * connection and the query together — so a request never waits longer, whatever the pool's
 * queue. The query itself is also cut by statement_timeout, which frees its connection.
 */
@Injectable()
export class DatabaseDeadlineInterceptor implements NestInterceptor {
  private readonly deadlineMs: number;

  constructor(config: ConfigService<Env, true>) {
    this.deadlineMs = config.get('DATABASE_TIMEOUT_MS');
  }

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      timeout({
        first: this.deadlineMs,
        with: () =>
          throwError(
            () => new ServiceUnavailableException('The database is unavailable; retry later'),
          ),
      }),
    );
  }
}
