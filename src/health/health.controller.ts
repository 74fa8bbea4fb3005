import { SkipThrottle } from '@nestjs/throttler';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '../auth/public.decorator';
import { ReadOnlyController } from '../requests/read-only.controller';
import { DatabasePing } from './database-ping';
import { DatabasePings } from './database-pings';
import { ShutdownState } from './shutdown-state';

/**
 * Probes for orchestrators: public, never stored by a cache, and answered with terminus' own JSON
 * report, 200 or 503 — not problem details (see ProblemDetailsFilter). Other methods than GET
 * and HEAD get the 405 problem, as on every path.
 */
// Probes and scrapes come every few seconds from every replica; they never spend a budget.
@SkipThrottle()
@Public()
@ApiExcludeController()
@Controller('health')
export class HealthController extends ReadOnlyController(['live', 'ready']) {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    private readonly shutdown: ShutdownState,
    private readonly databases: DatabasePings,
  ) {
    super();
  }

  /** The process is up and serving HTTP; never touches the database. */
  @Get('live')
  @Header('Cache-Control', 'no-store')
  @HealthCheck({ swaggerDocumentation: false })
  live() {
    return this.health.check([]);
  }

  /** Worth sending traffic to: not shutting down, and the database (and replicas) answer quickly. */
  @Get('ready')
  @Header('Cache-Control', 'no-store')
  @HealthCheck({ swaggerDocumentation: false })
  ready() {
    return this.health.check([
      () => {
        const session = this.indicator.check('shutdown');
        return this.shutdown.isShuttingDown ? session.down('shutting down') : session.up();
      },
      ...this.databases.all.map((ping) => () => this.pingCheck(ping)),
    ]);
  }

  private async pingCheck(ping: DatabasePing) {
    const session = this.indicator.check(ping.name);
    const { isUp, responseTime } = await ping.check();
    return isUp ? session.up({ responseTime }) : session.down('not answering');
  }
}
