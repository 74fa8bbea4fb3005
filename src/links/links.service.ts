import { Injectable, NotFoundException } from '@nestjs/common';
import { Request, Response } from 'express';
import { CoalescedRead } from '../database/coalesced-read';
import { isoMicros } from '../database/printed-timestamp';
import { LINK_NOT_FOUND } from '../errors/error-texts';
import { KeptBody, SharedRender } from '../responses/shared-render';
import { Detached, goingOnAlone, StreamedBody } from '../responses/streamed-body';
import { WorkLimits } from '../limits/work-limits';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { LinkScope, linkScopeOf } from '../api-keys/link-scope';
import etag from 'etag';
import { ListResume, renderLink, renderLinksList } from './link.renderer';
import { LinkRow, LinksBatchReader, LinksRepository } from './links.repository';

// Rows per query: each query costs about as much as a hundred of its rows.
export const LINKS_BATCH_SIZE = 1000;

// The largest List Links body kept for the next requests (about 85,000 links of short ids);
// a longer one is streamed as it is read.
export const KEPT_LIST_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The ETag of a List Links body too long to keep, named by the content of the rows it is made
 * from: the body is a function of those rows, so the tag is known before a byte of it is made
 * and a 304 needs none made. (A body kept whole is tagged by its bytes, as Express would.) The
 * `v1` changes with the way a body is made from its rows.
 */
export const streamedListEtag = (content: string) => `W/"links-v1-${content.replace(':', '-')}"`;

/** The List Links answer for one request: its ETag, and how its body is sent. */
export interface ListAnswer {
  etag: string;
  send(req: Request, res: Response): Promise<void>;
}

interface KeptList extends KeptBody {
  content: string;
}

/** Links: the whole list, and one by id. */
@Injectable()
export class LinksService {
  // Concurrent requests share one read of the table's content (never one older than them).
  private readonly content = new CoalescedRead(() => this.links.content());
  private kept?: KeptList;
  /** Renders still open to more requests, by the content their requests read. */
  private readonly joinable = new Map<string, SharedRender<ListResume>>();

  constructor(
    private readonly links: LinksRepository,
    private readonly limits: WorkLimits,
  ) {}

  /**
   * The List Links answer as of a moment after the call (docs/performance.md, List Links), from
   * the table's content, read afresh: the body kept from an earlier request while that content
   * is unchanged, with its ETag; else a 304 for the ETag of the content's streamed body; else a
   * render, shared with the requests that read the same content while nothing of it was sent.
   */
  async listAll(caller: ApiCaller): Promise<ListAnswer> {
    const scope = linkScopeOf(caller);
    if (scope) return this.scopedList(scope);
    const content = await this.content.get();
    const kept = this.kept?.content === content ? this.kept : undefined;
    return {
      etag: kept?.etag ?? streamedListEtag(content),
      send: async (req, res) => {
        if (kept) return kept.body.send(req, res);
        if (req.fresh) return void res.status(304).end();
        return this.rendered(content, caller.keyId).serve(req, res);
      },
    };
  }

  /**
   * Every link in list order (docs/api.md, Endpoints), or those after `after`, in keyset batches
   * read by `read`: each batch is read once the previous one has been consumed, so its rows can
   * be dropped before the next arrives.
   */
  async *batches(read: LinksBatchReader, after?: LinkRow): AsyncGenerator<LinkRow[]> {
    for (let last = after; ;) {
      const batch = await read(LINKS_BATCH_SIZE, last && positionOf(last));
      yield batch;
      if (batch.length < LINKS_BATCH_SIZE) return;
      last = batch[batch.length - 1];
    }
  }

  /**
   * A link-scoped key's list (docs/api.md, "Scoped keys"): its links only, read and made whole
   * for the request, tagged by its bytes; never a body kept or shared with another key.
   */
  private async scopedList(scope: LinkScope): Promise<ListAnswer> {
    const rows = await this.links.scopedList(scope);
    const body = `{"data":[${rows.map(renderLink).join(',')}],"meta":{"total":${rows.length}}}`;
    return { etag: etag(body, { weak: true }), send: async (_req, res) => void res.send(body) };
  }

  /** A link, if the caller may see it: out of its scope, the same 404 as an unknown id. */
  async findOne(id: string, caller: ApiCaller): Promise<LinkRow> {
    const link = await this.links.findById(id, linkScopeOf(caller));
    if (!link) throw new NotFoundException(LINK_NOT_FOUND);
    return link;
  }

  /**
   * A render of the list joinable by a request that read `content`: one started for that
   * content that has sent nothing yet (its rows are at least as new as the content, which had
   * not changed between the two requests' reads), or a new one, within the renders' cap (in
   * the turn of `keyId`, the key of the request that starts it).
   */
  private rendered(content: string, keyId: string): SharedRender<ListResume> {
    const open = this.joinable.get(content);
    if (open?.isJoinable) return open;
    const render = new SharedRender<ListResume>(KEPT_LIST_MAX_BYTES, (detached) =>
      this.goOnAlone(detached),
    );
    this.joinable.set(content, render);
    this.limits
      .run('list_render', keyId, () => this.render(render))
      .catch((error: unknown) => render.fail(error))
      .finally(() => {
        if (this.joinable.get(content) === render) this.joinable.delete(content);
      });
    return render;
  }

  /** Renders the list into `render` from one snapshot, and keeps the body when it was kept whole. */
  private render(render: SharedRender<ListResume>): Promise<void> {
    return this.links.inOneSnapshot(async (snapshot) => {
      // The snapshot's own content: its rows may be newer than what the request read.
      const content = await snapshot.content();
      render.begin(streamedListEtag(content));
      for await (const { text, next } of renderLinksList(this.batches(snapshot.batch))) {
        await render.write(text, next);
      }
      const kept = render.end();
      if (kept) this.kept = { content, ...kept };
    });
  }

  /**
   * A reader detached from its render goes on alone once it has taken what it was sent: the
   * rest of its body from a snapshot of its own, within the renders' cap (its turn awaited: its
   * answer has begun). The list may have changed meanwhile: its response is then cut, never
   * finished with rows of another list than its ETag names.
   */
  private goOnAlone(detached: Detached<ListResume>): void {
    void goingOnAlone(detached, (again) => this.goOnAlone(again)).then((body) => {
      if (body === undefined) return;
      if (detached.resume?.isEnded) return body.end();
      const { res } = detached.receiver;
      const etag = String(res.getHeader('ETag'));
      // In the turn of the key whose request it answers (the access log's key id).
      const keyId = String((res as Response).locals?.apiKeyId ?? '');
      this.limits
        .runInTurn('list_render', keyId, () => this.renderRest(body, etag, detached.resume))
        .catch((error: unknown) => body.fail(error));
    });
  }

  private renderRest(body: StreamedBody<ListResume>, etag: string, from?: ListResume) {
    return this.links.inOneSnapshot(async (snapshot) => {
      if (!body.hasReceivers) return;
      if (streamedListEtag(await snapshot.content()) !== etag) return body.cut();
      for await (const { text, next } of renderLinksList(
        this.batches(snapshot.batch, from?.last),
        from,
      )) {
        await body.write(Buffer.from(text), next);
      }
      body.end();
    });
  }
}

/** Where the list goes on after `link`. */
const positionOf = (link: LinkRow) => ({ timestamp: isoMicros(link.createdAt), id: link.id });
