import { SkipThrottle } from '@nestjs/throttler';
import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { Public } from '../auth/public.decorator';
import { OperationsEnv } from '../config/operations.env';
import { DatabasePools } from '../database/pools';
import { ShutdownState } from './shutdown-state';

/**
 * Probes for orchestrators: public, and answered with terminus' own JSON
 * report, 200 or 503 — not problem details (see ProblemDetailsFilter).
 */
// Probes and scrapes come every few seconds from every replica; they never spend a budget.
@SkipThrottle()
@Public()
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownState,
    private readonly env: OperationsEnv,
    private readonly dataSource: DataSource,
  ) {}

  /** The process is up and serving HTTP; never touches the database. */
  @Get('live')
  @HealthCheck({ swaggerDocumentation: false })
  live() {
    return this.health.check([]);
  }

  /** Worth sending traffic to: not shutting down, and the database (and replicas) answer quickly. */
  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  ready() {
    const timeout = this.env.HEALTH_TIMEOUT_MS;
    return this.health.check([
      () => {
        const session = this.indicator.check('shutdown');
        return this.shutdown.isShuttingDown ? session.down('shutting down') : session.up();
      },
      () => this.database.pingCheck('database', { timeout }),
      ...this.replicaPools().map(
        (pool, index) => () =>
          this.indicator
            .check(`replica-${index}`)
            .attempt(async () => {
              await pool.query('SELECT 1');
            })
            .withTimeout(timeout),
      ),
    ]);
  }

  // The primary is pinged above through the DataSource, whose plain queries go to it.
  private replicaPools() {
    return new DatabasePools(this.dataSource).replicas;
  }
}
