import { ChangedLinks, Feed } from './changes.repository';

/** What the watcher learnt of a feed over [from, to): the rows stamped there, by link. */
interface Span {
  feed: Feed;
  from: string;
  to: string;
  links: ChangedLinks;
}

/** Spans kept: a poll that began to wait before the oldest is woken to read for itself. */
const KEPT_SPANS = 512;
const NO_LINKS: ChangedLinks = new Map();

/**
 * Whether `changed` holds a row of one of `links` (every link when undefined) stamped at or
 * after `since`: one a poll that read up to `since` has not seen.
 */
export function concerns(
  changed: ChangedLinks,
  since: string,
  links?: ReadonlySet<string>,
): boolean {
  if (changed === 'all') return true;
  if (links === undefined || changed.size <= links.size) {
    for (const [link, at] of changed) if (at >= since && (!links || links.has(link))) return true;
    return false;
  }
  for (const link of links) if ((changed.get(link) ?? '') >= since) return true;
  return false;
}

/**
 * The changes the watcher has seen lately, as spans of safe points (printed micros, which sort as
 * text; '-infinity' first). A poll read its feed up to one safe point and then begins to wait;
 * whatever the watcher saw past it before the poll was listening is here, so no wake-up falls
 * between the poll's read and its first wake-up.
 */
export class RecentChanges {
  private readonly spans: Span[] = [];
  /** Where the kept spans begin: nothing earlier is known. */
  private coveredFrom: string;

  constructor(start: string) {
    this.coveredFrom = start;
  }

  /** Where the watcher has read up to: changes before it are known, later ones are not. */
  get position(): string {
    return this.spans.at(-1)?.to ?? this.coveredFrom;
  }

  /** Records what was stamped in [position, to); an empty span is not kept. */
  record(to: string, changes: Record<Feed, ChangedLinks>): void {
    const from = this.position;
    if (to <= from) return;
    for (const feed of ['links', 'clients'] as const) {
      const links = changes[feed];
      if (links === 'all' || links.size > 0) this.spans.push({ feed, from, to, links });
    }
    // Nothing changed: the position still moves, on a marker with no link (one for a quiet run).
    const last = this.spans.at(-1);
    if (last?.to !== to) {
      if (last && last.links !== 'all' && last.links.size === 0) last.to = to;
      else this.spans.push({ feed: 'links', from, to, links: NO_LINKS });
    }
    const over = this.spans.length - KEPT_SPANS;
    if (over > 0) this.coveredFrom = this.spans.splice(0, over).at(-1)!.to;
  }

  /**
   * Whether a change made at or after `readUpTo` (a safe point a poll read up to) may concern
   * the polls of `feed` limited to `links` (every link when undefined).
   */
  hasSince(readUpTo: string, feed: Feed, links?: ReadonlySet<string>): boolean {
    if (readUpTo < this.coveredFrom) return true;
    for (let i = this.spans.length - 1; i >= 0 && this.spans[i].to > readUpTo; i--) {
      const span = this.spans[i];
      if (span.feed === feed && concerns(span.links, readUpTo, links)) return true;
    }
    return false;
  }
}
