import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { ChangesController } from './changes.controller';
import { ChangesRepository } from './changes.repository';
import { ChangesService } from './changes.service';
import { SafePointLag } from './safe-point-lag';
import { ChangeNotifications } from './change-notifications';
import { WaitingPolls } from './waiting-polls';

@Module({
  imports: [DatabaseModule],
  controllers: [ChangesController],
  providers: [ChangesRepository, ChangesService, SafePointLag, ChangeNotifications, WaitingPolls],
})
export class ChangesModule {}
