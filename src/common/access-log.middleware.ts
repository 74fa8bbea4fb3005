import { Logger } from '@nestjs/common';
import { NextFunction, Request, Response } from 'express';
import { requestIdOf } from './request-id.middleware';

const logger = new Logger('HTTP');

/**
 * One line per request, naming the key by its id (never the key). The path is logged without
 * its query string, and the logger masks anything that still looks like a key.
 */
export function accessLogMiddleware(req: Request, res: Response, next: NextFunction): void {
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const keyId = (res.locals.apiKeyId as string | undefined) ?? '-';
    logger.log(
      `${req.method} ${req.path} ${res.statusCode} ${ms.toFixed(1)}ms key=${keyId} requestId=${requestIdOf(res)}`,
    );
  });
  next();
}
