import {
  All,
  Controller,
  Get,
  Header,
  MethodNotAllowedException,
  Param,
  Query,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrorResponses } from '../http/api-error-responses.decorator';
import { NoQueryParams } from '../http/no-query-params';
import { LinkResponse } from './dto/link.response';
import { LINK_EXAMPLE, LINKS_LIST_EXAMPLE } from './dto/links.examples';
import { LinksListResponse } from './dto/links-list.response';
import { renderLink, renderLinksList } from './link.renderer';
import { LinksService } from './links.service';

@ApiTags('links')
@Controller('api/data/links')
export class LinksController {
  constructor(private readonly linksService: LinksService) {}

  @Get()
  @ApiOperation({ operationId: 'listLinks', summary: 'List every link, by createdAt then id' })
  @ApiOkResponse({
    description: 'Every link, with their number',
    type: LinksListResponse,
    example: LINKS_LIST_EXAMPLE,
  })
  @ApiErrorResponses(400)
  async list(@Query() _query: NoQueryParams): Promise<StreamableFile> {
    const json = renderLinksList(await this.linksService.list());
    // Past the first byte a failure can only cut the response short; an end would look complete.
    return new StreamableFile(json, { type: 'application/json; charset=utf-8' }).setErrorHandler(
      (_error, res) => res.destroy?.(),
    );
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getLink', summary: 'Get one link by id' })
  @ApiParam({ name: 'id', description: 'The link id (opaque string)' })
  @ApiOkResponse({ description: 'The link', type: LinkResponse, example: LINK_EXAMPLE })
  @ApiErrorResponses(400, 404)
  @Header('Content-Type', 'application/json; charset=utf-8')
  async get(@Param('id') id: string, @Query() _query: NoQueryParams): Promise<string> {
    return renderLink(await this.linksService.findOne(id));
  }

  // Registered after the GET routes, so it only sees the other methods (docs/api.md, Errors: 405).
  @All(['', ':id'])
  @ApiExcludeEndpoint()
  rejectOtherMethods(): never {
    throw new MethodNotAllowedException('This resource is read-only; use GET or HEAD');
  }
}
