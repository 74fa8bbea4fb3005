import { totalmem } from 'node:os';
import { Gauge, Registry } from 'prom-client';

/** The memory alert's line (LinksClientsMemoryNearLimit): this share of the memory limit. */
export const MEMORY_ALERT_SHARE = 0.9;

/**
 * The container's memory limit, from `process.constrainedMemory()`: undefined when there is none,
 * which Node reports as 0 (no memory cgroup) or as at least the machine's memory (2^64 for an
 * unlimited cgroup).
 */
export function containerMemoryLimit(
  constrainedMemory: number | undefined,
  totalMemory: number,
): number | undefined {
  return constrainedMemory && constrainedMemory < totalMemory ? constrainedMemory : undefined;
}

/** This process's container memory limit now (a pod resized in place has a new one). */
export const currentContainerMemoryLimit = (): number | undefined =>
  containerMemoryLimit(process.constrainedMemory(), totalmem());

/**
 * `process_memory_limit_bytes`, read at each scrape (a pod resized in place has a new limit): the
 * memory the process may hold, its container's limit or else the machine's. The memory alert and
 * the dashboard set resident memory against it, whatever limit the Deployment gives.
 */
export function registerMemoryLimit(registry: Registry): void {
  new Gauge({
    name: 'process_memory_limit_bytes',
    help: "Memory the process may hold: its container's limit, or the machine's without one",
    registers: [registry],
    collect() {
      this.set(currentContainerMemoryLimit() ?? totalmem());
    },
  });
}
