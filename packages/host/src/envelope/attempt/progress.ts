import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { cutText } from '@cordon/plugin-api';
import { elapsedText } from '../../output/status.js';
import { RUNS_DIR } from '../../telemetry/session-dir.js';
import { readMarkersView } from '../../top/markers-tail.js';

/** How often the runs directory is listed again while no session of the attempt is known, ms. */
const RESCAN_MS = 2_000;
/** Longest command shown in the status line, characters. */
const COMMAND_CHARS = 60;

/**
 * What a `cordon run` attempt's agent is doing now, for the status line: the tool call it runs
 * (`Bash: npm test, 12 s`) or the last one it finished (`last: Edit src/app.ts`). The source is
 * the session markers `cordon hook` writes, so it shows only for an agent whose hooks are
 * installed (`cordon install-hooks`); nothing is shown otherwise. The attempt's session is the
 * one under `<data>/runs` whose first marker came after the attempt started and whose newest
 * working directory is inside the repository; only the ends of its markers are read (the reader
 * of `cordon top`), at most once a second when the status line redraws.
 */
export class AttemptProgress {
  #session: string | undefined;
  #scannedAt = 0;

  /**
   * @param dataDir cordon's data directory (where the hook writes `runs/<session>/markers.jsonl`).
   * @param root the repository the attempt works in (absolute).
   * @param startedAt when the attempt started, epoch ms.
   */
  constructor(
    readonly dataDir: string,
    readonly root: string,
    readonly startedAt: number,
  ) {}

  /** The status-line text, or `undefined` when no call of this attempt was seen yet. Never throws. */
  text(now = Date.now()): string | undefined {
    try {
      const session = this.#findSession(now);
      if (!session) return undefined;
      const view = readMarkersView(join(session, 'markers.jsonl'), 1);
      const open = view.open.at(-1);
      if (open) return `${describe(open.tool_name, open.command)}, ${elapsedText(Math.max(0, now - open.started_at))}`;
      const last = view.endedCalls[0];
      return last ? `last: ${describe(last.tool_name, last.command)}` : undefined;
    } catch {
      return undefined;
    }
  }

  #findSession(now: number): string | undefined {
    if (this.#session) return this.#session;
    if (now - this.#scannedAt < RESCAN_MS) return undefined;
    this.#scannedAt = now;
    const runs = join(this.dataDir, RUNS_DIR);
    let best: { dir: string; at: number } | undefined;
    for (const name of readdirSync(runs)) {
      const dir = join(runs, name);
      let at: number;
      try {
        at = statSync(join(dir, 'markers.jsonl')).mtimeMs;
      } catch {
        continue;
      }
      if (at < this.startedAt) continue;
      // A session whose first marker came before the attempt belongs to another agent run.
      const view = readMarkersView(join(dir, 'markers.jsonl'), 0);
      if (view.firstAt === undefined || view.firstAt < this.startedAt - 1_000) continue;
      if (view.cwd === undefined || !inside(this.root, view.cwd)) continue;
      if (!best || at > best.at) best = { dir, at };
    }
    this.#session = best?.dir;
    return this.#session;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function describe(tool: string | null, command: string | null): string {
  const what = command ? cutText(command.replace(/\s+/g, ' ').trim(), COMMAND_CHARS) : '';
  return `${tool ?? 'tool'}${what ? `: ${what}` : ''}`;
}
