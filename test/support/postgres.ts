import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A throwaway PostgreSQL cluster on a loopback port (for the PostgreSQL store's tests). */
export interface PgCluster {
  /** `postgres://cordon:<password>@127.0.0.1:<port>/` plus the database name. */
  url(database?: string): string;
  readonly port: number;
  readonly password: string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

/** Why no cluster can start here (no `initdb`/`pg_ctl`, or no unprivileged user as root), else undefined. */
export function pgUnavailable(): string | undefined {
  for (const bin of ['initdb', 'pg_ctl']) if (spawnSync(bin, ['--version']).status !== 0) return `${bin} is not installed (scripts/test-prepare.sh installs Debian's postgresql)`;
  if (userInfo().uid === 0 && spawnSync('id', ['postgres']).status !== 0) return 'running as root and there is no postgres user to run initdb as';
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster with `initdb` + `pg_ctl` in a temp dir, listening on 127.0.0.1 only, with
 * scram-sha-256 password authentication for the superuser `cordon` (so tests see real
 * credentials). As root, initdb and the server run as the `postgres` user (initdb refuses root).
 */
export async function startPgCluster(): Promise<PgCluster> {
  const root = mkdtempSync(join(tmpdir(), 'cordon-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (argv: string[]) => execFileSync(asRoot ? 'runuser' : argv[0]!, asRoot ? ['-u', 'postgres', '--', ...argv] : argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot) {
    const pg = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(root, Number(pg), Number(gid));
    chownSync(pwfile, Number(pg), Number(gid));
  }
  chmodSync(root, 0o700);
  const data = join(root, 'data');
  run(['initdb', '-D', data, '-U', 'cordon', '--pwfile', pwfile, '--auth=scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  run(['pg_ctl', '-D', data, '-l', join(root, 'log'), '-w', '-t', '60', '-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`, 'start']);
  const url = (database = 'postgres') => `postgres://cordon:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    password,
    async createDatabase(name: string) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop() {
      try {
        run(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
