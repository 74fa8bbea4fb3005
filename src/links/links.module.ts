import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';

@Module({
  imports: [DatabaseModule],
  controllers: [LinksController],
  providers: [LinksService],
})
export class LinksModule {}
