import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram, missingLine, programsInstalled } from '../support/optional-program';

// The one gate for tests that spawn a program npm does not install.
describe('Optional programs (test/support/optional-program.ts)', () => {
  const bin = mkdtempSync(join(tmpdir(), 'optional-program-'));
  const kubectl = join(bin, 'kubectl');
  let stderr: jest.SpyInstance;

  beforeAll(() => {
    writeFileSync(kubectl, '#!/bin/sh\n');
    chmodSync(kubectl, 0o755);
    writeFileSync(join(bin, 'psql'), 'not executable');
  });
  beforeEach(() => (stderr = jest.spyOn(process.stderr, 'write').mockReturnValue(true)));
  afterEach(() => stderr.mockRestore());
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('finds an executable on PATH, not a file that cannot run', () => {
    expect(findProgram('kubectl', { PATH: `/nonexistent:${bin}` })).toBe(kubectl);
    expect(findProgram('psql', { PATH: bin })).toBeUndefined();
  });

  it('counts only what OPTIONAL_PROGRAMS lists as installed, none with `none`', () => {
    const env = (listed: string) => ({ PATH: bin, OPTIONAL_PROGRAMS: listed });
    expect(findProgram('kubectl', env('none'))).toBeUndefined();
    expect(findProgram('kubectl', env('psql'))).toBeUndefined();
    expect(findProgram('kubectl', env('psql, kubectl'))).toBe(kubectl);
  });

  it('names each missing program with its install command', () => {
    expect(
      missingLine(['kubectl', 'pgbouncer', 'psql'], { PATH: bin, OPTIONAL_PROGRAMS: 'kubectl' }),
    ).toBe('needs pgbouncer, psql — apt-get install pgbouncer; apt-get install postgresql-client');
    expect(missingLine(['kubectl'], { PATH: bin })).toBeUndefined();
    expect(missingLine(['prometheus', 'promtool'], { OPTIONAL_PROGRAMS: 'none' })).toBe(
      'needs prometheus, promtool — apt-get install prometheus',
    );
  });

  it('outside CI, skips with one line on stderr', () => {
    expect(programsInstalled(['kubectl'], 'manifests', { OPTIONAL_PROGRAMS: 'none' })).toBe(false);
    expect(stderr.mock.calls).toEqual([
      ['manifests: skipped: needs kubectl — apt-get install kubectl\n'],
    ]);
  });

  it('under CI=true, a missing program is an error naming it', () => {
    expect(() =>
      programsInstalled(['redis-server'], 'limits', { CI: 'true', OPTIONAL_PROGRAMS: 'none' }),
    ).toThrow('limits: needs redis-server — apt-get install redis-server (required under CI=true)');
    expect(stderr).not.toHaveBeenCalled();
  });

  it('runs, silently, when every program is there, on CI or not', () => {
    expect(programsInstalled(['kubectl'], 'manifests', { PATH: bin })).toBe(true);
    expect(programsInstalled(['kubectl'], 'manifests', { PATH: bin, CI: 'true' })).toBe(true);
    expect(stderr).not.toHaveBeenCalled();
  });
});
