import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { ChangesController } from './changes.controller';
import { ChangesRepository } from './changes.repository';
import { ChangesService } from './changes.service';

@Module({
  imports: [DatabaseModule],
  controllers: [ChangesController],
  providers: [ChangesRepository, ChangesService],
})
export class ChangesModule {}
