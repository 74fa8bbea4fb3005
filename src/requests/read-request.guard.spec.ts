import { BadRequestException, ExecutionContext, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { ChangesController } from '../changes/changes.controller';
import { ClientsController } from '../clients/clients.controller';
import { LinksController } from '../links/links.controller';
import { NoQueryParams, TAKES_NO_QUERY } from './no-query-params';
import { parseQuery } from '../query/parse-query';
import { ReadRequestGuard } from './read-request.guard';
import { StrictQueryPipe } from '../query/strict-query.pipe';

class Routes {
  @NoQueryParams()
  get() {}
  list() {}
}

const guard = new ReadRequestGuard(new Reflector());
const contextOf = (handler: keyof Routes, query: string) => {
  const request = { method: 'GET', headers: {}, params: {}, query: parseQuery(query) };
  return {
    getClass: () => Routes,
    getHandler: () => Routes.prototype[handler],
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
};

const errorsOf = (handler: keyof Routes, query: string) => {
  try {
    guard.canActivate(contextOf(handler, query));
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return ((error as BadRequestException).getResponse() as { errors: unknown }).errors;
  }
  throw new Error('expected a 400');
};

describe('ReadRequestGuard on a route marked @NoQueryParams()', () => {
  it('lets a request without a query through', () => {
    expect(guard.canActivate(contextOf('get', ''))).toBe(true);
  });

  it('answers any parameter with a 400 naming each, in query order', () => {
    expect(errorsOf('get', 'page=1&x&page=2&%zz')).toEqual([
      { name: 'page', reason: 'is not a known parameter' },
      { name: 'x', reason: 'is not a known parameter' },
      { name: '%zz', reason: 'is not a known parameter' },
    ]);
  });

  it("leaves an unmarked route's query to its pipe", () => {
    expect(guard.canActivate(contextOf('list', 'page=1&x'))).toBe(true);
  });
});

// Query validation is not global (a piped parameter costs every request), so no data route may
// go without it: each GET either validates a query DTO or takes no query at all.
describe('every data route validates its query', () => {
  const handlerOf = (controller: object, name: string): object =>
    Object.getOwnPropertyDescriptor(controller, name)?.value as object;
  const routes = [ClientsController, LinksController, ChangesController].flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => {
        const handler = handlerOf(controller.prototype, name);
        return Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.GET;
      })
      .map((name) => [`${controller.name}.${name}`, controller, name] as const),
  );

  it('finds the routes', () => expect(routes.length).toBe(6));

  it.each(routes)('%s', (_route, controller, name) => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
      string,
      { pipes: unknown[] }
    >;
    const queries = Object.entries(args).filter(([key]) =>
      key.startsWith(`${RouteParamtypes.QUERY}:`),
    );
    const validated = queries.filter(([, arg]) => arg.pipes.includes(StrictQueryPipe));
    const takesNoQuery =
      Reflect.getMetadata(TAKES_NO_QUERY, handlerOf(controller.prototype, name)) === true;
    expect({ takesNoQuery, queries: queries.length, validated: validated.length }).toEqual(
      takesNoQuery
        ? { takesNoQuery, queries: 0, validated: 0 }
        : { takesNoQuery, queries: 1, validated: 1 },
    );
  });
});
