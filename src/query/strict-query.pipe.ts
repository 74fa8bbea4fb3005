import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { INVALID_PERCENT_ENCODING, INVALID_QUERY } from '../errors/error-texts';
import { MALFORMED_NAMES, ParsedQuery } from './parse-query';
import { filtersOf } from './filters';
import { CursorBinding, CursorCodec, CursorError, cursorBindingOf } from './signed-cursor';
import { remember } from './kept';
import { boundToKey, KEY_SCOPE } from './key-scope';

export const UNKNOWN_PARAMETER = 'is not a known parameter';

export interface ParameterError {
  name: string;
  reason: string;
}

const CURSOR_REASONS: Record<CursorError, string> = {
  malformed: 'is not a cursor issued by this service',
  'other-scope':
    'was issued for another endpoint, other filters or another key; repeat the ones it came with',
};

/**
 * Validates a query DTO against the raw query (docs/api.md, Endpoints), on every route that
 * takes query parameters (`@Query(StrictQueryPipe)`): unknown names, repeated names and invalid
 * values are each reported, all at once. Names are checked against the DTO before
 * class-transformer sees them, so `__proto__` or `constructor` cannot slip through. Routes
 * that take none are marked @NoQueryParams() instead.
 */
@Injectable()
export class StrictQueryPipe implements PipeTransform {
  /**
   * Valid queries' DTOs, by DTO and query (`remember`: the latest short ones); a query that
   * fails is never kept. Many requests send the very same query (the long polls at one position,
   * the readers of one page), each costing a class-transformer and a class-validator pass.
   */
  private readonly validated = new Map<ArgumentMetadata['metatype'], Map<string, object>>();

  constructor(private readonly cursors: CursorCodec) {}

  transform(value: unknown, { type, metatype }: ArgumentMetadata): unknown {
    if (type !== 'query' || !metatype) return value;
    const query = value as ParsedQuery & { [KEY_SCOPE]?: string };
    // All a query is: its parameters in order, its malformed names, the key its cursor binds to.
    const key = JSON.stringify([query[KEY_SCOPE], query[MALFORMED_NAMES], Object.entries(query)]);
    let kept = this.validated.get(metatype);
    if (!kept) this.validated.set(metatype, (kept = new Map()));
    const dto = kept.get(key) ?? remember(kept, key, this.validate(query, metatype));
    // A copy: each request's DTO is its own.
    return Object.assign(Object.create(Object.getPrototypeOf(dto) as object) as object, dto);
  }

  private validate(
    query: ParsedQuery & { [KEY_SCOPE]?: string },
    metatype: NonNullable<ArgumentMetadata['metatype']>,
  ): object {
    const known = queryParameterNames(metatype);
    const errors: ParameterError[] = [];
    const accepted: Record<string, unknown> = Object.create(null);
    const malformed = query[MALFORMED_NAMES];
    for (const [name, value] of Object.entries(query)) {
      if (!known.has(name)) errors.push({ name, reason: UNKNOWN_PARAMETER });
      else if (malformed?.includes(name)) errors.push({ name, reason: INVALID_PERCENT_ENCODING });
      else if (Array.isArray(value)) errors.push({ name, reason: 'must be given only once' });
      else accepted[name] = value;
    }
    const dto = plainToInstance(metatype, accepted) as object;
    for (const error of validateSync(dto, { forbidUnknownValues: false })) {
      errors.push({ name: error.property, reason: Object.values(error.constraints ?? {})[0] });
    }
    this.decodeCursor(dto, errors, query, query[KEY_SCOPE], (name, value) =>
      Reflect.get(plainToInstance(metatype, { [name]: value }) as object, name),
    );
    if (errors.length > 0) {
      const position = new Map(Object.keys(query).map((name, index) => [name, index]));
      errors.sort((a, b) => (position.get(a.name) ?? 0) - (position.get(b.name) ?? 0));
      throw invalidQuery(errors);
    }
    return dto;
  }

  /**
   * A signed cursor that passed the plain checks is verified against its request's scope. A
   * filter already named (repeated, empty, invalid) may be the one the cursor came with: the
   * cursor is named too only when no possible query fits it.
   */
  private decodeCursor(
    dto: object,
    errors: ParameterError[],
    query: ParsedQuery,
    keyScope: string | undefined,
    parseAlone: (name: string, value: string) => unknown,
  ): void {
    const binding = cursorBindingOf(dto.constructor);
    const fields = dto as Record<string, unknown>;
    const cursor = binding && fields[binding.property];
    if (!binding || typeof cursor !== 'string') return;
    if (errors.some((error) => error.name === binding.property)) return;
    const scopes = possibleQueries(binding, errors, fields, query, parseAlone).flatMap((possible) =>
      [binding.scope(possible), binding.earlierScope?.(possible)]
        .filter((scope) => scope !== undefined)
        .map((scope) => boundToKey(scope, keyScope)),
    );
    const position = this.cursors.decode(cursor, scopes);
    if (typeof position === 'string') {
      errors.push({ name: binding.property, reason: CURSOR_REASONS[position] });
    } else {
      fields[binding.target] = position;
    }
  }
}

// Values read per filter in error: a repeated filter's first two.
const VALUES_PER_FILTER = 2;

/**
 * The query as validated, then, where the cursor's filters are in error, every query the
 * request may have meant: each such filter left out, or given once with one of its values.
 */
function possibleQueries(
  binding: CursorBinding,
  errors: ParameterError[],
  fields: Record<string, unknown>,
  query: ParsedQuery,
  parseAlone: (name: string, value: string) => unknown,
): object[] {
  let all: Record<string, unknown>[] = [fields];
  const filters = [...binding.filters, ...filtersOf(fields.constructor).map(({ name }) => name)];
  for (const name of filters) {
    if (!errors.some((error) => error.name === name)) continue;
    const given = [...new Set([query[name]].flat())].slice(0, VALUES_PER_FILTER);
    const values = [undefined, ...given.map((value) => parseAlone(name, value as string))];
    all = all.flatMap((possible) => values.map((value) => ({ ...possible, [name]: value })));
  }
  return all;
}

/** The 400 for bad query parameters, each named with its reason. */
export function invalidQuery(errors: ParameterError[]): BadRequestException {
  return new BadRequestException({ message: INVALID_QUERY, errors });
}

// Decorators run once, at import, so a DTO's names never change: read them once per DTO, not
// once per request.
const namesByDto = new Map<new () => unknown, ReadonlySet<string>>();

/** A query DTO's parameters: the fields it validates. */
export function queryParameterNames(dto: new () => unknown): ReadonlySet<string> {
  let names = namesByDto.get(dto);
  if (!names) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    names = new Set(rules.map((rule) => rule.propertyName));
    namesByDto.set(dto, names);
  }
  return names;
}
