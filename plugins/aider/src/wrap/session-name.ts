import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { TelemetryService } from '@cordon/plugin-api';

/** The file whose presence says a session has been recorded (the hook's and `wrap`'s markers). */
const MARKERS_FILE = 'markers.jsonl';

/** The default session id of a wrapped command: `wrap-<unix seconds>-<wrapper pid>`, new at every run. */
export function defaultSessionId(nowMs: number = Date.now(), pid: number = process.pid): string {
  return `wrap-${Math.floor(nowMs / 1000)}-${pid}`;
}

/**
 * Why `--session NAME` cannot record this run, as the refusal's whole text, or undefined when it
 * can:
 * - a name the host would store under another name (`../evil` as `evil-<hash>`): the host's rule
 *   (`telemetry.sessionNameProblem`; a host older than it: the name `sessionDir` would not keep);
 * - a session already recorded (its markers exist, ended or still running): a second run would
 *   append to it, and `reduce` would pair the two runs' markers as one session with a gap.
 */
export function sessionFlagProblem(telemetry: TelemetryService, name: string): string | undefined {
  const shown = `--session ${JSON.stringify(name)}`;
  const problem = telemetry.sessionNameProblem ? telemetry.sessionNameProblem(name) : basename(telemetry.sessionDir(name)) === name ? undefined : 'not a plain session name';
  if (problem !== undefined) return `${shown}: ${problem}`;
  const dir = telemetry.sessionDir(name);
  if (existsSync(join(dir, MARKERS_FILE))) {
    return `${shown}: session ${name} is already recorded (${dir}); each wrap records a session of its own: give a new name, or leave --session out for one like ${defaultSessionId()}`;
  }
  return undefined;
}
