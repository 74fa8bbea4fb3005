import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Response, Test } from 'supertest';
import { OpenApiChecker } from './openapi';

/**
 * The contract test: every response a supertest request receives in any e2e spec is checked
 * against the committed openapi.json (status, headers, body), so code and document cannot
 * drift. Paths the document does not describe (probes, metrics, docs) are not checked.
 * A deliberately malformed exchange opts out with `exemptFromContract(request(...).get(...))`;
 * raw-socket tests never pass through here.
 */
const checker = new OpenApiChecker(
  JSON.parse(readFileSync(join(__dirname, '../../openapi.json'), 'utf8')) as Record<
    string,
    unknown
  >,
);
const exempt = new WeakSet<Test>();

export function exemptFromContract(test: Test): Test {
  exempt.add(test);
  return test;
}

type Callback = (error: Error | null, response: Response) => void;
// Every response passes through `end`, whether the test awaits it or passes a callback.
const prototype = Test.prototype as unknown as { end(callback?: Callback): unknown };
const end = prototype.end;
prototype.end = function (this: Test & { method: string; url: string }, callback?: Callback) {
  return end.call(this, (error, response) => {
    if (!exempt.has(this) && response) {
      try {
        checker.expectConforms(this.method, this.url, response);
      } catch (violation) {
        callback?.(violation as Error, response);
        return;
      }
    }
    callback?.(error, response);
  });
};
