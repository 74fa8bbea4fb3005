import { totalmem } from 'node:os';
import { Registry } from 'prom-client';
import { containerMemoryLimit, registerMemoryLimit } from './memory-limit';

const MiB = 2 ** 20;

describe('containerMemoryLimit', () => {
  const MACHINE = 8 * 1024 * MiB;

  it('is the cgroup limit when there is one', () => {
    expect(containerMemoryLimit(256 * MiB, MACHINE)).toBe(256 * MiB);
  });

  it.each([
    ['no memory cgroup (0)', 0],
    ['an older Node (undefined)', undefined],
    ['an unlimited cgroup (2^64)', 2 ** 64],
    ["cgroup v1's unlimited (2^63 - 4096)", 9223372036854771712],
    ["the machine's own memory", MACHINE],
  ])('is undefined for %s', (_case, constrained) => {
    expect(containerMemoryLimit(constrained, MACHINE)).toBeUndefined();
  });
});

describe('process_memory_limit_bytes', () => {
  it("reports the container's limit, or else the machine's memory, at each scrape", async () => {
    const registry = new Registry();
    registerMemoryLimit(registry);
    const constrained = jest.spyOn(process, 'constrainedMemory');
    try {
      constrained.mockReturnValue(256 * MiB);
      expect(await registry.metrics()).toMatch(/^process_memory_limit_bytes 268435456$/m);
      constrained.mockReturnValue(2 ** 64);
      expect(await registry.metrics()).toMatch(
        new RegExp(`^process_memory_limit_bytes ${totalmem()}$`, 'm'),
      );
    } finally {
      constrained.mockRestore();
    }
  });
});
