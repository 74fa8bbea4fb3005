import { IsOptional, Matches } from 'class-validator';
import { CommaList, IntegerFrom, WholeMilliseconds } from './env-decorators';

/** The HTTP server and what it answers from the caches. */
export class HttpEnv {
  @IntegerFrom(0, 65535)
  PORT = 3000;

  // Origins allowed to call the API from a browser; unset, CORS is off.
  @IsOptional()
  @CommaList()
  @Matches(/^https?:\/\/[^\s/]+$/, {
    each: true,
    message: 'CORS_ORIGINS must list origins such as https://app.example.com',
  })
  CORS_ORIGINS?: string[];

  // How old a list total may be (docs/api.md, Endpoints); the rows are always fresh.
  @WholeMilliseconds(0)
  COUNT_CACHE_TTL_MS = 2000;
}
