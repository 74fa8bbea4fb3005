import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Env } from '../config/env';
import { CursorCodec } from './signed-cursor';

/** One cursor codec for every endpoint that issues cursors, and for the validation pipe. */
@Global()
@Module({
  providers: [
    {
      provide: CursorCodec,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) =>
        new CursorCodec({
          current: config.get('CURSOR_SECRET'),
          previous: config.get('CURSOR_SECRET_PREVIOUS'),
        }),
    },
  ],
  exports: [CursorCodec],
})
export class CursorModule {}
