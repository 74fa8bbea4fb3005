import { ArrayNotEmpty, IsOptional, Matches } from 'class-validator';
import { CommaList, WholeMilliseconds } from './env-decorators';

/** The API keys of the environment; the database holds the others. */
export class KeysEnv {
  // Required only without DATABASE_URL: see validateEnvSections.
  @IsOptional()
  @CommaList()
  @ArrayNotEmpty({ message: 'API_KEYS must list at least one key' })
  // An HTTP header carries visible ASCII intact; Node reads other bytes one character each, so
  // a key with any other character could never match.
  @Matches(/^[\x21-\x7e]+$/, {
    each: true,
    message: 'API_KEYS keys must be visible ASCII characters: no whitespace, no other characters',
  })
  API_KEYS?: string[];

  // How long the database keys are cached, so also how late a revocation may take effect.
  @WholeMilliseconds(100)
  KEY_CACHE_TTL_MS = 10000;
}
