import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabasePings } from './database-pings';
import { HealthController } from './health.controller';
import { ShutdownState } from './shutdown-state';

@Global()
@Module({
  // Failed checks are logged as one JSON line, like every other log line.
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
  controllers: [HealthController],
  providers: [ShutdownState, DatabasePings],
  exports: [ShutdownState],
})
export class HealthModule {}
