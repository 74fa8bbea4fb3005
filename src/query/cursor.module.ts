import { Global, Module } from '@nestjs/common';
import { PagingEnv } from '../config/paging.env';
import { CursorCodec } from './signed-cursor';

/** One cursor codec for every endpoint that issues cursors, and for the validation pipe. */
@Global()
@Module({
  providers: [
    {
      provide: CursorCodec,
      inject: [PagingEnv],
      useFactory: (env: PagingEnv) =>
        new CursorCodec({ current: env.CURSOR_SECRET, previous: env.CURSOR_SECRET_PREVIOUS }),
    },
  ],
  exports: [CursorCodec],
})
export class CursorModule {}
