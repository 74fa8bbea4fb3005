import { Controller, Get, Header, Logger, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiErrorResponses,
  LIMIT_OUT_OF_RANGE,
  unknownParameter,
} from '../openapi/api-error-responses.decorator';
import { nextPageLinks } from '../openapi/next-page-link';
import { ReadOnlyController } from '../requests/read-only.controller';
import { RequiresOperation } from '../auth/requires-operation.decorator';
import { StrictQueryPipe } from '../query/strict-query.pipe';
import { Caller } from '../auth/caller.decorator';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { renderChangesPage } from './changes.renderer';
import { ChangesPage, ChangesService } from './changes.service';
import { ProblemDetailsFilter } from '../errors/problem-details.filter';
import { ClientChangesResponse, LinkChangesResponse } from './dto/changes-page.response';
import { ClientChangesQuery, LinkChangesQuery } from './dto/changes.query';
import { CLIENT_CHANGES_EXAMPLE, LINK_CHANGES_EXAMPLE } from './dto/changes.examples';

const FEED_NOTE =
  'Rows ordered by updatedAt, then id (byte order); a row appears again each time it changes. ' +
  'Without cursor the feed starts at the beginning: a full copy, soft-deleted rows included. ' +
  'Rows are served only up to a safe point, so no change is ever skipped. Hard deletes are not reported. ' +
  'With wait, a caught-up poll is held until a change is served or wait seconds pass (long polling).';

/** A page, as every poll that shares it is sent it (renderChangesPage). */
async function send(req: Request, res: Response, page: ChangesPage): Promise<void> {
  const { body, etag } = renderChangesPage(page);
  res.setHeader('ETag', etag);
  await body.send(req, res);
}

@ApiTags('changes')
@RequiresOperation('changes:read')
@Controller('api/data/changes')
export class ChangesController extends ReadOnlyController(['clients', 'links']) {
  private readonly logger = new Logger(ChangesController.name);

  constructor(
    private readonly changes: ChangesService,
    private readonly problems: ProblemDetailsFilter,
  ) {
    super();
  }

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
    links: nextPageLinks('clientChanges', ['limit', 'linkId']),
  })
  @ApiErrorResponses({
    path: '/api/data/changes/clients',
    badQuery: [LIMIT_OUT_OF_RANGE, unknownParameter('since')],
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  clients(
    @Query(StrictQueryPipe) query: ClientChangesQuery,
    @Req() req: Request,
    @Res() res: Response,
    @Caller() caller: ApiCaller,
  ): void {
    this.sendWhenReady(req, res, this.changes.clients(query, res, caller));
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
    links: nextPageLinks('linkChanges', ['limit']),
  })
  @ApiErrorResponses({
    path: '/api/data/changes/links',
    badQuery: [unknownParameter('linkId')],
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  links(
    @Query(StrictQueryPipe) query: LinkChangesQuery,
    @Req() req: Request,
    @Res() res: Response,
    @Caller() caller: ApiCaller,
  ): void {
    this.sendWhenReady(req, res, this.changes.links(query, res, caller));
  }

  /**
   * Sends the page when it comes, or answers its failure, after the handler has returned: a long
   * poll then waits holding its response, not Nest's chain of handler calls (~1.7 KB less heap a
   * poll, docs/performance.md "Memory"). Failures reach the same filter as any handler's.
   */
  private sendWhenReady(req: Request, res: Response, page: Promise<ChangesPage>): void {
    page
      .then((ready) => send(req, res, ready))
      .catch((error: unknown) => this.problems.respond(error, req, res))
      // Never an unhandled rejection: a failure past the filter is logged, its connection ended.
      .catch((error: unknown) => {
        const trace = error instanceof Error ? error.stack : String(error);
        this.logger.error('Answering a failed feed request failed', trace);
        res.destroy();
      });
  }
}
