import { applyDecorators, Get, Header, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { NoQueryParams } from '../requests/no-query-params';
import { ApiErrorResponses, unknownParameter } from './api-error-responses.decorator';

interface GetByIdRoute {
  operationId: string;
  summary: string;
  /** What one row is called: `client` gives "The client id", "The client". */
  noun: string;
  /** The collection's path, as its examples show it. */
  path: string;
  type: Type<unknown>;
  example: object;
  /** The 404's detail. */
  notFound: string;
}

/** A resource's get by id: the route, its OpenAPI text and its errors, alike for every resource. */
export const GetById = ({
  operationId,
  summary,
  noun,
  path,
  type,
  example,
  notFound,
}: GetByIdRoute) =>
  applyDecorators(
    Get(':id'),
    ApiOperation({ operationId, summary }),
    ApiParam({ name: 'id', description: `The ${noun} id (opaque string)`, example: `${noun}-1` }),
    ApiOkResponse({ description: `The ${noun}`, type, example }),
    ApiErrorResponses({ path, badQuery: [unknownParameter('fields')], notFound }),
    Header('Content-Type', 'application/json; charset=utf-8'),
    NoQueryParams(),
  );
