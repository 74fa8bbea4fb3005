import { BadRequestException } from '@nestjs/common';
import * as classValidator from 'class-validator';
import { getMetadataStorage } from 'class-validator';
import { ListClientsQuery } from '../clients/dto/list-clients.query';
import { parseQuery } from './parse-query';
import { CursorCodec } from './signed-cursor';
import { KEY_SCOPE } from './key-scope';
import { StrictQueryPipe } from './strict-query.pipe';

const pipe = new StrictQueryPipe(new CursorCodec({ current: 'spec-secret' }));
const run = (query: string, metatype: new () => object = ListClientsQuery) =>
  pipe.transform(parseQuery(query), { type: 'query', metatype });

const errorsOf = (query: string, metatype?: new () => object) => {
  try {
    run(query, metatype);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return ((error as BadRequestException).getResponse() as { errors: unknown }).errors;
  }
  throw new Error('expected a 400');
};

describe('StrictQueryPipe with ListClientsQuery', () => {
  it('validates a query once: sent again, its DTO is a copy of the first, at no validation', () => {
    const fresh = new StrictQueryPipe(new CursorCodec({ current: 'spec-secret' }));
    const validate = jest.spyOn(classValidator, 'validateSync');
    try {
      const [first, second] = [1, 2].map(() =>
        fresh.transform(parseQuery('linkId=a&limit=5'), {
          type: 'query',
          metatype: ListClientsQuery,
        }),
      );
      expect(validate).toHaveBeenCalledTimes(1);
      expect(second).not.toBe(first);
      expect(second).toBeInstanceOf(ListClientsQuery);
      expect({ ...(second as object) }).toEqual({ linkId: 'a', limit: 5 });
      // Another order, or another key, is another query.
      fresh.transform(parseQuery('limit=5&linkId=a'), {
        type: 'query',
        metatype: ListClientsQuery,
      });
      expect(validate).toHaveBeenCalledTimes(2);
      const ofKey = Object.assign(parseQuery('linkId=a&limit=5'), { [KEY_SCOPE]: 'key-1' });
      fresh.transform(ofKey, { type: 'query', metatype: ListClientsQuery });
      expect(validate).toHaveBeenCalledTimes(3);
    } finally {
      validate.mockRestore();
    }
  });

  it('keeps no failed query: a malformed one is refused every time, even beside its valid twin', () => {
    const fresh = new StrictQueryPipe(new CursorCodec({ current: 'spec-secret' }));
    const metadata = { type: 'query', metatype: ListClientsQuery } as const;
    fresh.transform(parseQuery('linkId=a%25'), metadata);
    for (let i = 0; i < 2; i++) {
      expect(() => fresh.transform(parseQuery('linkId=a%'), metadata)).toThrow(BadRequestException);
      expect(() => fresh.transform(parseQuery('limit=0'), metadata)).toThrow(BadRequestException);
    }
  });

  it('fills the defaults', () => {
    const dto = run('');
    expect(dto).toBeInstanceOf(ListClientsQuery);
    expect({ ...(dto as object) }).toEqual({ limit: 100 }); // page 1 is applied by the service
  });

  it('converts each valid value exactly', () => {
    expect({
      ...(run('page=007&limit=1000&linkId=a+b&isDeleted=false&status=connected') as object),
    }).toEqual({
      page: 7,
      limit: 1000,
      linkId: 'a b',
      isDeleted: false,
      status: 'connected',
    });
    expect((run('isDeleted=true') as ListClientsQuery).isDeleted).toBe(true);
  });

  it('never turns "false" into true', () => {
    expect((run('isDeleted=false') as ListClientsQuery).isDeleted).toBe(false);
  });

  it('reports every problem, in query order', () => {
    expect(errorsOf('status=x&page=0&nope=1&limit=1&limit=2')).toEqual([
      { name: 'status', reason: 'must be one of: new, connected' },
      { name: 'page', reason: 'must be an integer from 1 to 2147483647' },
      { name: 'nope', reason: 'is not a known parameter' },
      { name: 'limit', reason: 'must be given only once' },
    ]);
  });

  it('does not let __proto__ change the result', () => {
    expect(errorsOf('__proto__[page]=5&__proto__=x')).toEqual([
      { name: '__proto__[page]', reason: 'is not a known parameter' },
      { name: '__proto__', reason: 'is not a known parameter' },
    ]);
  });

  it('leaves non-query arguments alone', () => {
    expect(pipe.transform('an id', { type: 'param', metatype: String })).toBe('an id');
  });
});

describe('StrictQueryPipe work per request', () => {
  // Every validation pass and every names lookup reads the DTO's rules from this storage.
  const reads = () => jest.spyOn(getMetadataStorage(), 'getTargetValidationMetadatas');
  afterEach(() => jest.restoreAllMocks());

  it("reads a DTO's parameter names once, not once per request", () => {
    run('limit=5');
    const spy = reads();
    run('limit=5');
    run('status=new');
    // (dto, '', true, false) is the names lookup; validation passes read with other arguments.
    expect(spy.mock.calls.filter((call) => call[2] === true)).toEqual([]);
  });
});
