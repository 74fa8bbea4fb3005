import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseModule } from '../database/database.module';
import { DatabasePings } from './database-pings';
import { HealthController } from './health.controller';
import { ReplicaChecks } from './replica-checks';
import { ShutdownState } from './shutdown-state';

@Global()
@Module({
  // Not a line per failed probe: DatabasePing logs when a database stops and starts answering.
  imports: [DatabaseModule, TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ShutdownState, DatabasePings, ReplicaChecks],
  exports: [ShutdownState],
})
export class HealthModule {}
