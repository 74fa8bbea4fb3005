import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ChangesController } from './changes.controller';
import { ChangesRepository } from './changes.repository';
import { ChangesService } from './changes.service';
import { SafePointLag } from './safe-point-lag';
import { ChangeWatcher } from './change-watcher';
import { WaitingPolls } from './waiting-polls';
import { ProblemDetailsFilter } from '../errors/problem-details.filter';

@Module({
  imports: [DatabaseModule, ApiKeysModule],
  controllers: [ChangesController],
  providers: [
    ChangesRepository,
    ChangesService,
    SafePointLag,
    ChangeWatcher,
    WaitingPolls,
    ProblemDetailsFilter,
  ],
})
export class ChangesModule {}
