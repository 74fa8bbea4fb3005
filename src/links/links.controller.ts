import { Controller, Get, Header, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, unknownParameter } from '../openapi/api-error-responses.decorator';
import { LINK_NOT_FOUND } from '../errors/error-texts';
import { NoQueryParams } from '../requests/no-query-params';
import { GetById } from '../openapi/get-by-id.decorator';
import { ReadOnlyController } from '../requests/read-only.controller';
import { RequiresOperation } from '../auth/requires-operation.decorator';
import { LinkResponse } from './dto/link.response';
import { LINK_EXAMPLE, LINKS_LIST_EXAMPLE } from './dto/links.examples';
import { LinksListResponse } from './dto/links-list.response';
import { renderLink } from './link.renderer';
import { LinksService } from './links.service';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { Caller } from '../auth/caller.decorator';

@ApiTags('links')
@RequiresOperation('links:read')
@Controller('api/data/links')
export class LinksController extends ReadOnlyController() {
  constructor(private readonly linksService: LinksService) {
    super();
  }

  @Get()
  @ApiOperation({ operationId: 'listLinks', summary: 'List every link, by createdAt then id' })
  @ApiOkResponse({
    description: 'Every link, with their number',
    type: LinksListResponse,
    example: LINKS_LIST_EXAMPLE,
  })
  @ApiErrorResponses({ path: '/api/data/links', badQuery: [unknownParameter('limit')] })
  @Header('Content-Type', 'application/json; charset=utf-8')
  @NoQueryParams()
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @Caller() caller: ApiCaller,
  ): Promise<void> {
    const list = await this.linksService.listAll(caller);
    res.setHeader('ETag', list.etag);
    await list.send(req, res);
  }

  @GetById({
    operationId: 'getLink',
    summary: 'Get one link by id',
    noun: 'link',
    path: '/api/data/links',
    type: LinkResponse,
    example: LINK_EXAMPLE,
    notFound: LINK_NOT_FOUND,
  })
  async get(@Param('id') id: string, @Caller() caller: ApiCaller): Promise<string> {
    return renderLink(await this.linksService.findOne(id, caller));
  }
}
