import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';

@Module({
  imports: [DatabaseModule],
  controllers: [ChangesController],
  providers: [ChangesService],
})
export class ChangesModule {}
