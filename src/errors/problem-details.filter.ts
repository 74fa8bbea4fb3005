import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../database/database-unavailable';
import { loggedPath } from '../logging/logged-path';
import { ERROR_CACHE_CONTROL } from '../responses/caching';
import { requestIdOf } from '../logging/request-id';
import { ParameterErrorDto, problemDetails } from './problem-details.dto';
import { retryAfterWhenBusy, ServiceBusyException } from './service-busy.exception';
import { ALLOWED_METHODS, MALFORMED_REQUEST, NO_RESOURCE, UNEXPECTED_ERROR } from './error-texts';

export const RETRY_AFTER_SECONDS_ON_OUTAGE = 5;

interface Problem {
  status: number;
  detail: string;
  errors?: ParameterErrorDto[];
}

/**
 * Writes the body of every error Nest handles: RFC 9457 problem details (docs/api.md, Errors).
 * What the HTTP parser refuses before Nest has a request is answered in client-error.ts.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  constructor(private readonly pino: PinoLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.respond(exception, http.getRequest<Request>(), http.getResponse<Response>());
  }

  /** Answers `exception` on `res`; also for work a handler left running (the feeds' long polls). */
  respond(exception: unknown, req: Request, res: Response): void {
    if (isHealthReport(exception)) {
      // Probes read terminus' own report: `{ status: "error", info, error, details }`.
      res.setHeader('Cache-Control', ERROR_CACHE_CONTROL);
      res.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    const requestId = requestIdOf(res);
    const problem = toProblem(exception);
    if (problem.status >= 500 && !(exception instanceof ServiceBusyException)) {
      // The line carries the requestId as a field, as the request's own line does.
      this.pino.runInContext(() => this.logFailure(req, exception, problem.status, requestId), {
        bindings: { requestId },
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (exception instanceof ServiceBusyException) {
      res.setHeader('Retry-After', String(retryAfterWhenBusy()));
    } else if (problem.status === HttpStatus.SERVICE_UNAVAILABLE) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS_ON_OUTAGE));
    }
    if (problem.status === HttpStatus.METHOD_NOT_ALLOWED) res.setHeader('Allow', ALLOWED_METHODS);
    const body = problemDetails(problem.status, problem.detail, requestId, {
      instance: req.originalUrl.split('?')[0],
      errors: problem.errors,
    });
    // Sent with `end`, not `send`: an error has no ETag to revalidate and must not be stored.
    // Nor does it keep what a route had set for the body it was about to send.
    res.removeHeader('ETag');
    res.removeHeader('Content-Encoding');
    const json = JSON.stringify(body);
    res.setHeader('Cache-Control', ERROR_CACHE_CONTROL);
    res.setHeader('Content-Length', Buffer.byteLength(json));
    res.status(problem.status).type('application/problem+json').end(json);
  }

  private logFailure(req: Request, exception: unknown, status: number, requestId: string): void {
    if (status === HttpStatus.SERVICE_UNAVAILABLE) {
      const { cause } = exception as { cause?: unknown };
      const why = cause === undefined ? String(exception) : String(cause);
      this.logger.warn(
        `${req.method} ${loggedPath(req)}: database unavailable (requestId ${requestId}): ${why}`,
      );
    } else {
      const trace = exception instanceof Error ? exception.stack : String(exception);
      this.logger.error(`${req.method} ${loggedPath(req)} failed (requestId ${requestId})`, trace);
    }
  }
}

function isHealthReport(exception: unknown): exception is ServiceUnavailableException {
  if (!(exception instanceof ServiceUnavailableException)) return false;
  const report = exception.getResponse() as { status?: unknown; details?: unknown };
  return report.status === 'error' && typeof report.details === 'object';
}

function toProblem(exception: unknown): Problem {
  if (exception instanceof HttpException) return fromHttpException(exception);
  if (isDatabaseUnavailable(exception)) {
    return { status: 503, detail: DATABASE_UNAVAILABLE };
  }
  // Errors raised by Express itself (e.g. a path segment that is not valid percent-encoding)
  // carry a 4xx status; their messages are internal, so only the status is kept.
  const status = (exception as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, detail: MALFORMED_REQUEST };
  }
  return { status: 500, detail: UNEXPECTED_ERROR };
}

function fromHttpException(exception: HttpException): Problem {
  const status = exception.getStatus();
  // Nest's own "no route" 404 repeats the URL, query string included; keep secrets out of it.
  if (exception instanceof NotFoundException && exception.message.startsWith('Cannot ')) {
    return { status, detail: NO_RESOURCE };
  }
  const response = exception.getResponse() as { errors?: ParameterErrorDto[] };
  return { status, detail: exception.message, errors: response.errors };
}
