import { Request, Response } from 'express';

/** A list's body: its length in bytes, and how it is sent after the headers already set. */
export interface ListBody {
  readonly length: number;
  send(req: Request, res: Response): void | Promise<void>;
}

/** A rendered list: its body, the body's ETag, and the content of the rows it was made from. */
export interface RenderedList {
  body: ListBody;
  etag: string;
  content: string;
}

/**
 * The last list rendered, served again for as long as the table's content is what it was
 * rendered from (docs/performance.md, "The last List Links body is kept"). Every call reads
 * the content afresh, after the request arrived, so a body is never older than its request: a
 * change already committed always shows. A call finding another render in flight takes its
 * result when that render's rows are the content it read, rather than rendering the same body
 * twice: a body too long to keep (more than `maxBytes`) is still shared by the calls that read
 * its content while it was rendered, which holds one body in memory for them rather than one
 * each.
 */
export class RenderedListCache {
  private kept?: RenderedList;
  private rendering?: Promise<RenderedList>;

  constructor(
    private readonly readContent: () => Promise<string>,
    private readonly render: () => Promise<RenderedList>,
    private readonly maxBytes: number,
  ) {}

  async get(): Promise<RenderedList> {
    const content = await this.readContent();
    let waitedFor: Promise<RenderedList> | undefined;
    for (;;) {
      if (this.kept?.content === content) return this.kept;
      // A render started since the last look may be of this content: callers that waited for
      // one of another content (or a failed one) share the next render rather than each start
      // their own. Nothing is awaited when nothing is in flight, so the first caller starts it.
      const inFlight = this.rendering;
      if (inFlight === undefined || inFlight === waitedFor) return this.renderAndKeep();
      waitedFor = inFlight;
      const rendered = await inFlight.catch(() => undefined);
      if (rendered?.content === content) return rendered;
    }
  }

  /**
   * Called by get's loop only once the render in flight, if any, has settled: renders never
   * overlap, so one list at a time is being read into memory.
   */
  private renderAndKeep(): Promise<RenderedList> {
    const rendering = this.render();
    this.rendering = rendering;
    rendering
      .then(
        (rendered) => (this.kept = rendered.body.length <= this.maxBytes ? rendered : undefined),
        () => undefined,
      )
      .finally(() => {
        if (this.rendering === rendering) this.rendering = undefined;
      });
    return rendering;
  }
}
