import { Expose } from 'class-transformer';
import { IsDefined, IsOptional, MinLength } from 'class-validator';
import { DiffersFrom, WholeMilliseconds } from './env-decorators';

/** List totals and cursors (docs/api.md, Endpoints). */
export class PagingEnv {
  // Signs cursors; its own secret, so rotating a database password keeps cursors valid.
  @Expose()
  @IsDefined({ message: 'CURSOR_SECRET is required (at least 32 characters)' })
  @MinLength(32, { message: 'CURSOR_SECRET must be at least 32 characters' })
  CURSOR_SECRET!: string;

  // During a rotation: cursors signed with the previous secret are still accepted.
  @Expose()
  @IsOptional()
  @MinLength(32, { message: 'CURSOR_SECRET_PREVIOUS must be at least 32 characters' })
  @DiffersFrom('CURSOR_SECRET', 'it holds the secret before the current one, or is unset')
  CURSOR_SECRET_PREVIOUS?: string;

  // How old a list total may be; the rows are always fresh.
  @WholeMilliseconds(0)
  COUNT_CACHE_TTL_MS = 2000;
}
