import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  ApiErrorResponses,
  LIMIT_OUT_OF_RANGE,
  unknownParameter,
} from '../openapi/api-error-responses.decorator';
import { CLIENT_NOT_FOUND } from '../errors/error-texts';
import { GetById } from '../openapi/get-by-id.decorator';
import { nextPageLinks } from '../openapi/next-page-link';
import { filtersOf } from '../query/filters';
import { ReadOnlyController } from '../requests/read-only.controller';
import { RequiresOperation } from '../auth/requires-operation.decorator';
import { StrictQueryPipe } from '../query/strict-query.pipe';
import { renderClient, renderClientsPage } from './client.renderer';
import { ClientsService } from './clients.service';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { Caller } from '../auth/caller.decorator';
import { ClientResponse } from './dto/client.response';
import { CLIENT_EXAMPLE, CLIENTS_PAGE_EXAMPLES } from './dto/clients.examples';
import { ClientsCursorPageResponse, ClientsPageResponse } from './dto/clients-page.response';
import { ListClientsQuery } from './dto/list-clients.query';

@ApiTags('clients')
@RequiresOperation('clients:read')
@Controller('api/data/clients')
export class ClientsController extends ReadOnlyController() {
  constructor(private readonly clientsService: ClientsService) {
    super();
  }

  @Get()
  @ApiOperation({
    operationId: 'listClients',
    summary: 'List clients, filtered and paged, by createdAt then id',
  })
  @ApiExtraModels(ClientsPageResponse, ClientsCursorPageResponse)
  @ApiOkResponse({
    description: 'A page by number (with totals), or the page after a cursor',
    content: {
      'application/json': {
        schema: {
          // Closed shapes: a page by number cannot pass as a cursor page, nor the reverse.
          oneOf: [
            { $ref: getSchemaPath(ClientsPageResponse) },
            { $ref: getSchemaPath(ClientsCursorPageResponse) },
          ],
        },
        examples: CLIENTS_PAGE_EXAMPLES,
      },
    },
    links: nextPageLinks('listClients', [
      'limit',
      ...filtersOf(ListClientsQuery).map(({ name }) => name),
    ]),
  })
  @ApiErrorResponses({
    path: '/api/data/clients',
    badQuery: [LIMIT_OUT_OF_RANGE, unknownParameter('stauts')],
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  async list(
    @Query(StrictQueryPipe) query: ListClientsQuery,
    @Caller() caller: ApiCaller,
  ): Promise<string> {
    return renderClientsPage(await this.clientsService.list(query, caller));
  }

  @GetById({
    operationId: 'getClient',
    summary: 'Get one client by id, soft-deleted or not',
    noun: 'client',
    path: '/api/data/clients',
    type: ClientResponse,
    example: CLIENT_EXAMPLE,
    notFound: CLIENT_NOT_FOUND,
  })
  async get(@Param('id') id: string, @Caller() caller: ApiCaller): Promise<string> {
    return renderClient(await this.clientsService.findOne(id, caller));
  }
}
