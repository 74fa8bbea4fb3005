import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiCaller, ApiKeyVerifier } from '../api-keys/api-key-verifier';
import { HeaderOnlyRequest } from './header-only-request';

@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly verifier: ApiKeyVerifier) {
    super({ passReqToCallback: true });
  }

  // The key passport found is the header's (it is shown nothing else); the caller comes from
  // the request's one lookup, which the rate limit may already have made.
  validate({ request }: HeaderOnlyRequest, _key: string): Promise<ApiCaller | false> {
    return this.verifier.callerOf(request);
  }
}
