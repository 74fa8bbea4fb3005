import { All, Controller, Get, Header, MethodNotAllowedException, Query } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../http/api-error-responses.decorator';
import { READ_ONLY } from '../http/error-texts';
import { renderChangesPage } from './changes.renderer';
import { ChangesService } from './changes.service';
import { ClientChangesResponse, LinkChangesResponse } from './dto/changes-page.response';
import { ClientChangesQuery, LinkChangesQuery } from './dto/changes.query';
import { CLIENT_CHANGES_EXAMPLE, LINK_CHANGES_EXAMPLE } from './dto/changes.examples';

const FEED_NOTE =
  'Rows ordered by updatedAt, then id (byte order); a row appears again each time it changes. ' +
  'Without cursor the feed starts at the beginning: a full copy, soft-deleted rows included. ' +
  'Rows are served only up to a safe point, so no change is ever skipped. Hard deletes are not reported.';

@ApiTags('changes')
@Controller('api/data/changes')
export class ChangesController {
  constructor(private readonly changes: ChangesService) {}

  @Get('clients')
  @ApiOperation({
    operationId: 'clientChanges',
    summary: 'Client changes, for keeping a mirror',
    description: FEED_NOTE,
  })
  @ApiOkResponse({
    description: 'The changes after the cursor',
    type: ClientChangesResponse,
    example: CLIENT_CHANGES_EXAMPLE,
  })
  @ApiErrorResponses(400)
  // The body is JSON text written by the renderer.
  @Header('Content-Type', 'application/json; charset=utf-8')
  async clients(@Query() query: ClientChangesQuery): Promise<string> {
    return renderChangesPage(await this.changes.clients(query));
  }

  @Get('links')
  @ApiOperation({
    operationId: 'linkChanges',
    summary: 'Link changes, for keeping a mirror',
    description: FEED_NOTE,
  })
  @ApiOkResponse({
    description: 'The changes after the cursor',
    type: LinkChangesResponse,
    example: LINK_CHANGES_EXAMPLE,
  })
  @ApiErrorResponses(400)
  @Header('Content-Type', 'application/json; charset=utf-8')
  async links(@Query() query: LinkChangesQuery): Promise<string> {
    return renderChangesPage(await this.changes.links(query));
  }

  // Registered after the GET routes, so it only sees the other methods.
  @All(['clients', 'links'])
  @ApiExcludeEndpoint()
  rejectOtherMethods(): never {
    throw new MethodNotAllowedException(READ_ONLY);
  }
}
