/** How the client retries a request the server asked to retry, or that never got an answer. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 8). */
  maxAttempts?: number;
  /** First backoff delay when the server gives no Retry-After; doubles each attempt (default 500). */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 60000). */
  maxDelayMs?: number;
  /** Called before each wait: log it, count it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  /** The status that caused the retry, or undefined for a network error. */
  status?: number;
  error?: unknown;
}

// The API sends Retry-After with 429 and 503; 500, 502 and 504 may be a proxy's or passing.
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Wraps fetch so that 429, 5xx and network errors are retried: after Retry-After when the
 * server sends one, otherwise after an exponential backoff with jitter. The last response
 * (or error) is returned when the attempts run out. Only safe for idempotent requests, which
 * every request to this read-only API is.
 */
export function retryingFetch(
  options: RetryOptions = {},
  baseFetch: (input: Request) => Promise<Response> = (input) => fetch(input),
): (input: Request) => Promise<Response> {
  const { maxAttempts = 8, baseDelayMs = 500, maxDelayMs = 60_000, onRetry } = options;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await baseFetch(request.clone());
      } catch (caught) {
        if (request.signal.aborted) throw caught;
        error = caught;
      }
      if (response && !RETRYABLE_STATUSES.has(response.status)) return response;
      if (attempt >= maxAttempts) {
        if (response) return response;
        throw error;
      }
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      const retryAfter = response && retryAfterMs(response.headers.get('retry-after'));
      const delayMs = Math.min(maxDelayMs, retryAfter ?? backoff * (0.5 + Math.random() / 2));
      await response?.body?.cancel();
      onRetry?.({ attempt, delayMs, status: response?.status, error });
      await sleep(delayMs, request.signal);
    }
  };
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
