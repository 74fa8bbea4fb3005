import { Response } from 'supertest';

export interface ExpectedProblem {
  status: number;
  title: string;
  /** Checked exactly when given; any string otherwise. */
  detail?: string;
  instance?: string;
  /** Members beyond the standard ones, such as `errors`. */
  [extra: string]: unknown;
}

/**
 * Asserts the response is a problem+json document with exactly these members, the request id
 * echoing the X-Request-Id header. The one place the shape of an error body is spelled out.
 */
export function expectProblem(res: Response, expected: ExpectedProblem): void {
  expect(res.status).toBe(expected.status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const { detail, instance, ...rest } = expected;
  expect(res.body).toEqual({
    type: 'about:blank',
    detail: detail ?? expect.any(String),
    instance: instance ?? expect.any(String),
    requestId: res.headers['x-request-id'],
    ...rest,
  });
}
