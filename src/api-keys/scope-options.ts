import { readFileSync } from 'node:fs';
import { KeyScopeChange, ListedApiKey } from './api-key-commands';
import { isOperation, Operation, OPERATIONS } from './key-scope';
import { UsageError } from './usage-error';

/** The key CLI's scope options (docs/operations.md, "Scoped keys"). */
export const SCOPE_OPTIONS = {
  operations: { type: 'string' },
  links: { type: 'string' },
  'links-file': { type: 'string' },
} as const;

/** The scope the options give: each part undefined when not given, null for `all`. */
export function scopeOf(values: Record<string, unknown>): KeyScopeChange {
  const operations = values.operations as string | undefined;
  const links = values.links as string | undefined;
  const linksFile = values['links-file'] as string | undefined;
  if (links !== undefined && linksFile !== undefined)
    throw new UsageError('give --links or --links-file, not both');
  return {
    operations: operations === undefined ? undefined : operationsOf(operations),
    links:
      linksFile !== undefined
        ? linkIdsOf(readFileSync(linksFile, 'utf8').split(/\r?\n/), '--links-file')
        : links === undefined
          ? undefined
          : links.trim() === 'all'
            ? null
            : linkIdsOf(links.split(','), '--links'),
  };
}

function operationsOf(text: string): Operation[] | null {
  if (text.trim() === 'all') return null;
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isOperation(name));
  if (unknown.length > 0 || names.length === 0)
    throw new UsageError(
      `--operations: ${unknown.join(', ') || 'none'} is not one of ${OPERATIONS.join(', ')}, or all`,
    );
  return [...new Set(names as Operation[])];
}

// A link id as the API takes it: non-empty, at most 255 characters (docs/api.md).
function linkIdsOf(lines: string[], option: string): string[] {
  const ids = lines.map((line) => line.trim()).filter((line) => line !== '');
  const bad = ids.find((id) => [...id].length > 255 || id.includes('\u0000'));
  if (bad !== undefined)
    throw new UsageError(`${option}: ${JSON.stringify(bad.slice(0, 40))} is no link id`);
  return [...new Set(ids)];
}

/** A key's scope in words: `all operations, all links`, or what it is limited to. */
export function scopeText({ record, links }: ListedApiKey): string {
  const operations =
    record.operations?.join(', ') || (record.operations ? 'no operation' : 'all operations');
  if (links === undefined && !record.isLinkScoped) return `${operations}, all links`;
  const shown = (links ?? []).slice(0, 5).join(', ');
  const more = (links?.length ?? 0) > 5 ? `, … (${links!.length} in all)` : '';
  return `${operations}, links: ${shown || 'none'}${more}`;
}
