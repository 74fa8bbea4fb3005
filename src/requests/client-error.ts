import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { ERROR_CACHE_CONTROL } from '../responses/caching';
import {
  ALLOWED_METHODS,
  bodyTooLarge,
  headersTooLarge,
  HOST_REQUIRED,
  MALFORMED_REQUEST,
  READ_ONLY,
  REQUEST_TIMEOUT,
  requestTargetTooLong,
  UNKNOWN_EXPECTATION,
} from '../errors/error-texts';
import { problemDetails } from '../errors/problem-details.dto';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id';
import { MAX_REQUEST_HEAD_BYTES } from '../config/http.env';
import { MAX_REQUEST_BODY_BYTES } from './request-size';

interface ParserError extends Error {
  code?: string;
  /** The packet the parser was reading, and how far into it the error arose. */
  rawPacket?: Buffer;
  bytesParsed?: number;
}

// llhttp knows a fixed list of methods, all of capitals and hyphens; a header name has no space.
const REQUEST_LINE_START = /^[A-Z-]+ /;
// A request line whose method is any token (RFC 9110), which llhttp may not know: `FOO`, `get`.
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]\r?\n/;

/**
 * What Node refuses before the app sees a request — a head over the limit, malformed HTTP, a
 * method it does not know or CONNECT, a client too slow to send its request, an `Expect` it
 * does not know — is answered with problem
 * details like every other error, instead of Node's bare status line, and the connection closed;
 * `counted` hears each such status, for the metrics.
 * An HTTP/1.1 request without `Host` is left to the app (refuseWithoutHost), so it is logged
 * and counted like any request.
 */
export function answerClientErrors(server: Server, counted: (status: number) => void): void {
  const logger = new Logger('HttpParser');
  // Read at each request, though missing from Node's type definitions.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // No body is invited here: most are never read, and the request gets its final answer at
  // once. A chunked read's body is, once its key has passed (ReadRequestGuard).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    sendProblem(res, 417, UNKNOWN_EXPECTATION, requestId);
    logger.log(`417: unknown Expect (requestId ${requestId})`);
    counted(417);
  });
  /** Answers on the socket itself (no request object exists) and closes it. */
  const refuse = (socket: Socket, [status, detail]: [number, string], why: string) => {
    const requestId = randomUUID();
    socket.write(problemResponse(status, detail, requestId));
    logger.log(`${status}: ${why} (requestId ${requestId})`);
    counted(status);
  };
  server.on('clientError', (error: ParserError, socket: Socket) => {
    // A socket error (a reset by the client) has no one to answer; nor may a response already
    // under way on this connection be corrupted (Node's own rule).
    const pending = pendingResponse(socket);
    if (isFromParser(error) && socket.writable && !pending?.headersSent) {
      refuse(
        socket,
        problemOf(error, pending !== undefined),
        `refused by the HTTP parser (${error.code})`,
      );
    }
    socket.destroy();
  });
  // CONNECT asks for a tunnel, which Node hands to this event rather than to the app.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    refuse(socket, [405, READ_ONLY], 'CONNECT refused');
    socket.destroy();
  });
}

function isFromParser(error: ParserError): boolean {
  return error.code?.startsWith('HPE_') === true || error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

/** The response of a request read earlier on this connection, while it is being answered. */
function pendingResponse(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

function problemOf(error: ParserError, behindAnother: boolean): [status: number, detail: string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return isRequestLineOverflow(error.rawPacket, error.bytesParsed)
        ? [414, requestTargetTooLong(MAX_REQUEST_HEAD_BYTES)]
        : [431, headersTooLarge(MAX_REQUEST_HEAD_BYTES)];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, bodyTooLarge(MAX_REQUEST_BODY_BYTES)];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, REQUEST_TIMEOUT];
    case 'HPE_INVALID_METHOD':
      // A method llhttp does not know is still a method other than GET and HEAD: the 405. Not
      // behind a request still being answered, whose answer the client would take it for.
      return !behindAnother && REQUEST_LINE.test(failedLine(error))
        ? [405, READ_ONLY]
        : [400, MALFORMED_REQUEST];
    default:
      return [400, MALFORMED_REQUEST];
  }
}

/** The packet's line where the parser stopped: another request may have come before it. */
function failedLine({ rawPacket, bytesParsed = 0 }: ParserError): string {
  const packet = rawPacket?.toString('latin1') ?? '';
  return packet.slice(packet.lastIndexOf('\n', bytesParsed - 1) + 1);
}

/**
 * Whether the line that took the head over the limit is the request line rather than a header:
 * Node reports both as HPE_HEADER_OVERFLOW, and only the packet it was reading tells them apart.
 */
export function isRequestLineOverflow(packet?: Buffer, overflowAt = packet?.length): boolean {
  if (!packet) return false;
  const parsed = packet.toString('latin1', 0, overflowAt);
  const lineStart = parsed.lastIndexOf('\n') + 1;
  const line = parsed.slice(lineStart);
  if (REQUEST_LINE_START.test(line)) return true;
  if (lineStart > 0) return false;
  // The line began in an earlier packet; only its end is in view. A request target holds no
  // whitespace, while the headers that grow that long (cookies) nearly always do.
  return !/[ \t]/.test(line);
}

/**
 * RFC 9112 requires a 400 for an HTTP/1.1 request without `Host`; answered here, before
 * routing, with problem details. Returns whether it answered.
 */
export function refuseWithoutHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  sendProblem(res, 400, HOST_REQUIRED, requestIdOf(res));
  return true;
}

/**
 * Answers `res` with a problem before routing, and closes its connection unless `keepOpen`
 * (nothing of the request is left unread).
 */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  requestId: string,
  { keepOpen = false } = {},
) {
  const [headers, body] = problem(status, detail, requestId);
  if (keepOpen) delete (headers as { Connection?: string }).Connection;
  res.writeHead(status, headers).end(body);
}

// No request was parsed: the id is new.
function problemResponse(status: number, detail: string, requestId: string): string {
  const [headers, body] = problem(status, detail, requestId);
  const fields = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...fields, '', body].join('\r\n');
}

// Nothing of the request is echoed: its path may be unknown or too long.
function problem(status: number, detail: string, requestId: string) {
  const body = JSON.stringify(problemDetails(status, detail, requestId));
  const headers = {
    'Content-Type': 'application/problem+json',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': ERROR_CACHE_CONTROL,
    [REQUEST_ID_HEADER]: requestId,
    ...(status === 405 && { Allow: ALLOWED_METHODS }),
    Connection: 'close',
  };
  return [headers, body] as const;
}
