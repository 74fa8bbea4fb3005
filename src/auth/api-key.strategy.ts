import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiKeys } from './api-keys';

export interface ApiCaller {
  authenticatedBy: 'api-key';
}

@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly apiKeys: ApiKeys) {
    super();
  }

  validate(key: string): ApiCaller | false {
    return this.apiKeys.includes(key) ? { authenticatedBy: 'api-key' } : false;
  }
}
