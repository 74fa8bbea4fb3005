import { SkipThrottle } from '@nestjs/throttler';
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Response } from 'express';
import { Registry } from 'prom-client';
import { Public } from '../auth/public.decorator';
import { ReadOnlyController } from '../http/read-only.controller';

/** Prometheus scrape endpoint; public like the health probes (docs/api.md, Authentication). */
// Probes and scrapes come every few seconds from every replica; they never spend a budget.
@SkipThrottle()
@Public()
@ApiExcludeController()
@Controller('metrics')
export class MetricsController extends ReadOnlyController(['']) {
  constructor(private readonly registry: Registry) {
    super();
  }

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
