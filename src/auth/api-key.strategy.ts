import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { BearerOnlyRequest } from './api-key.guard';
import { ApiCaller, ApiKeyVerifier } from '../api-keys/api-key-verifier';

@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly verifier: ApiKeyVerifier) {
    super({ passReqToCallback: true });
  }

  validate({ request }: BearerOnlyRequest, key: string): Promise<ApiCaller | false> {
    return this.verifier.verifyRequest(request, key);
  }
}
