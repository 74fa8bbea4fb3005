import { Global, Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { InFlightRequests } from './in-flight-requests';
import { SHED_COUNTER, shedCounter } from './shed-counter';
import { WorkLimits } from './work-limits';

/** What a pod takes on at once (docs/operations.md, Limits); used by the resources and guards. */
@Global()
@Module({
  providers: [
    // Registry: provided globally by MetricsModule.
    { provide: SHED_COUNTER, inject: [Registry], useFactory: shedCounter },
    WorkLimits,
    InFlightRequests,
  ],
  exports: [WorkLimits, InFlightRequests, SHED_COUNTER],
})
export class LimitsModule {}
