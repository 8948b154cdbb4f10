import { redactArgv, redactText } from '../output/redact.js';
import { terminalCut } from '../output/terminal.js';

/** Characters of an ended process's command line that the note and the run record show. */
export const ENDED_COMMAND_CHARS = 200;

/** A process a guarded call left running, as the note names it and `runs.jsonl` records it. */
export interface ShownEndedProcess {
  readonly pid: number;
  /** Its command line: secrets as `***`, unshown characters as `\uXXXX`, cut to {@link ENDED_COMMAND_CHARS} with `…`. */
  readonly command: string;
}

/**
 * What an enforcement backend reported of the processes it ended (`GuardResult.ended`, plugin
 * data, so read defensively) as the host shows them: each argv redacted whole (`redactArgv`,
 * so `--token X` hides X), joined by spaces, escaped for a terminal and only then cut, so a
 * secret at the cut is already `***` (a backend that cut first could leave `ghp_12…` showing).
 * A backend of an older plugin API that sent `command` text instead of `argv` is read the same way
 * (`redactText`). Entries without a whole-number pid are skipped.
 */
export function shownEndedProcesses(ended: unknown): ShownEndedProcess[] {
  if (!Array.isArray(ended)) return [];
  const shown: ShownEndedProcess[] = [];
  for (const p of ended as Array<{ pid?: unknown; argv?: unknown; command?: unknown }>) {
    if (!p || !Number.isSafeInteger(p.pid)) continue;
    const argv = Array.isArray(p.argv) ? p.argv.filter((a): a is string => typeof a === 'string') : undefined;
    const line = argv ? redactArgv(argv).join(' ') : typeof p.command === 'string' ? redactText(p.command) : '?';
    shown.push({ pid: p.pid as number, command: terminalCut(line || '?', ENDED_COMMAND_CHARS) });
  }
  return shown;
}
