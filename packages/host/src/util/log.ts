import { appendLine } from '../io/append.js';
import { isoTimestamp } from './clock.js';
import { ensurePrivateDir } from '../io/private-dir.js';
import { join } from 'node:path';
import type { Logger } from '@cordon/plugin-api';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A file logger: one JSON line per entry in `<dataDir>/logs/cordon.log` (owner-only: 0700 dir,
 * 0600 file, whole-line appends). It never writes to
 * stdout or stderr, because the hook path must print nothing an agent did not ask for.
 * Level: `CORDON_LOG_LEVEL` (`debug`|`info`|`warn`|`error`), else `debug` when `CORDON_DEBUG` is
 * set, else `warn`. Write failures are swallowed: logging never breaks a command.
 */
export function createFileLogger(dataDir: string, scope: string, env: NodeJS.ProcessEnv = process.env): Logger {
  const wanted = (env.CORDON_LOG_LEVEL as Level | undefined) ?? (env.CORDON_DEBUG ? 'debug' : 'warn');
  const threshold = ORDER[wanted] ?? ORDER.warn;
  const file = join(dataDir, 'logs', 'cordon.log');
  let ready = false;
  const write = (level: Level, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < threshold) return;
    try {
      if (!ready) {
        ensurePrivateDir(join(dataDir, 'logs'));
        ready = true;
      }
      appendLine(file, JSON.stringify({ t: isoTimestamp(), level, scope, pid: process.pid, message, ...fields }) + '\n');
    } catch {
      // Logging is best effort.
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

