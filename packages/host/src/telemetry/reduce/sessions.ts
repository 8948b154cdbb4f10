import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { MARKERS_FILE } from '../markers.js';
import { SAMPLER_FILES } from '../sampler/files.js';
import { RUNS_DIR, sanitizeSessionId } from '../session-dir.js';

/** A session directory under `<dataDir>/runs`. */
export interface SessionLocation {
  /** Directory name (the sanitised session id). */
  readonly name: string;
  readonly dir: string;
  /** Latest modification of its markers or samples, epoch ms. */
  readonly activeAt: number;
}

/** Every session directory holding markers or samples, most recently active first. */
export function listSessions(dataDir: string): SessionLocation[] {
  const runs = join(dataDir, RUNS_DIR);
  let names: string[];
  try {
    names = readdirSync(runs);
  } catch {
    return [];
  }
  const found: SessionLocation[] = [];
  for (const name of names) {
    const dir = join(runs, name);
    let activeAt = -1;
    for (const file of [MARKERS_FILE, SAMPLER_FILES.samples]) {
      try {
        activeAt = Math.max(activeAt, statSync(join(dir, file)).mtimeMs);
      } catch {
        // Not there.
      }
    }
    if (activeAt >= 0) found.push({ name, dir, activeAt });
  }
  return found.sort((a, b) => b.activeAt - a.activeAt || (a.name < b.name ? -1 : 1));
}

/** How many known session names an unknown `--session` error lists before "… and N more". */
const KNOWN_SHOWN = 5;

/** `a, b, c`, the first {@link KNOWN_SHOWN} then `… and N more` when cut; `none` when empty. */
function knownList(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, KNOWN_SHOWN).join(', ');
  return names.length > KNOWN_SHOWN ? `${shown} … and ${names.length - KNOWN_SHOWN} more` : shown;
}

/**
 * The sessions `cordon reduce` works on: the one named by `session` (a raw agent session id or its
 * directory name), every one with `all`, else the most recently active.
 * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming the id or the runs directory when there
 * is nothing to reduce.
 */
export function selectSessions(dataDir: string, select: { readonly session?: string; readonly all?: boolean }): SessionLocation[] {
  const sessions = listSessions(dataDir);
  const runs = join(dataDir, RUNS_DIR);
  if (select.session !== undefined) {
    const name = sanitizeSessionId(select.session);
    const hit = sessions.find((s) => s.name === name || s.name === select.session);
    if (!hit) {
      throw new CordonError(ERROR_CODES.BAD_INPUT, `--session ${JSON.stringify(select.session)}: no recorded session of that id under ${runs} (known: ${knownList(sessions.map((s) => s.name))})`, {
        details: { session: select.session, runs },
      });
    }
    return [hit];
  }
  if (sessions.length === 0) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `no recorded sessions under ${runs}: a session is recorded once an agent with cordon's hooks makes a tool call (\`cordon install-hooks\` installs them, \`cordon doctor\` says for which agents they are in place) or an agent runs under \`cordon wrap\``, { details: { runs } });
  }
  return select.all ? sessions : [sessions[0]!];
}
