import { directoryProblem, shownJson, systemErrorWords, type LedgerHandle } from '@cordon/plugin-api';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isReportable, PcodxRuntimeError, PcodxUsageError } from '../errors.js';
import { hostApi } from '../host-api.js';
import { textOut, type Sink } from '../output.js';
import { writeNewPrivate } from '../serve/capture.js';
import { runModelTurn } from './run.js';

/** Flags of `cordon pcodx model-turn`. */
export interface ModelTurnFlags {
  readonly session: string;
  readonly cwd?: string;
  readonly text: string;
  readonly codexBin: string;
  readonly timeoutMs: number;
  readonly json?: boolean;
  readonly contextOut?: string;
  readonly usageLog?: string;
}

/**
 * `cordon pcodx model-turn` (the Rust pcodx, SichangHe/partial_compact_codex): the session must exist; the usage log
 * is checked before the turn (a log open to group or others is refused with nothing run); the
 * turn runs; the rows are recorded; the usage line is appended. Output: the answer on stdout and
 * `key=value` lines on stderr, through `sink` (the command's: escaped for a terminal as every
 * pcodx output is, since the answer is the model's text and the log path the user's), or one JSON
 * object on stdout with `json`.
 */
export async function modelTurnCommand(ledger: LedgerHandle, flags: ModelTurnFlags, sink: Sink): Promise<void> {
  const api = await hostApi();
  const session = await ledger.resolveSession({ id: flags.session, mode: 'existing' });
  const cwd = flags.cwd !== undefined ? resolve(flags.cwd) : session.cwd;
  if (!isAbsolute(cwd)) throw new PcodxUsageError(`session \`${session.id}\` has a relative cwd \`${cwd}\`; pass --cwd DIR`);
  const contextOut = flags.contextOut === undefined ? undefined : resolve(flags.contextOut);
  if (contextOut !== undefined && existsSync(contextOut)) throw new PcodxUsageError(`--context-out ${contextOut} exists already; name a new file`);
  const inState = contextOut === undefined ? undefined : api.services.files.stateDirProblem?.(contextOut);
  if (inState !== undefined) throw new PcodxUsageError(`--context-out ${contextOut}: ${inState.why}`);
  // Its directory must be there before the app-server starts (`--context-out missing/x.json`).
  const noDir = contextOut === undefined ? undefined : directoryProblem(dirname(contextOut));
  if (noDir !== undefined) throw new PcodxUsageError(`--context-out ${contextOut}: its directory ${dirname(contextOut!)}: ${noDir}; nothing was run`);
  const usageLog = api.services.ledger.checkUsageLog({ usageLog: flags.usageLog, dbPath: ledger.path });
  let result;
  try {
    result = await runModelTurn({
      ledger,
      session,
      text: flags.text,
      cwd,
      codexBin: flags.codexBin,
      timeoutMs: flags.timeoutMs,
      onContext: contextOut ? (items) => writeContext(contextOut, items) : undefined,
    });
  } catch (error) {
    // Ledger refusals keep their own code; the app-server's failures are reported as they are.
    if (isReportable(error)) throw error;
    throw new PcodxRuntimeError((error as Error).message, { cause: error });
  }
  api.services.ledger.appendUsage(result.usage, { usageLog: flags.usageLog, dbPath: ledger.path });
  const [prompt, answer] = result.rows;
  if (flags.json) {
    // The answer is the model's text: JSON that cannot act on a terminal or a CI log.
    process.stdout.write(`${shownJson({ session_id: session.id, prompt_message_id: prompt!.id, answer_message_id: answer!.id, answer: result.answer, usage: result.usage, usage_log: usageLog })}\n`);
    return;
  }
  for (const line of [`session_id=${session.id}`, `prompt_message_id=${prompt!.id}`, `answer_message_id=${answer!.id}`, `usage_log=${usageLog}`]) sink.err(line);
  textOut(sink, result.answer);
}

/**
 * Writes the injected items to the new file `path` (`--context-out`), before the turn starts. A
 * file that cannot be made (`/proc/self/x`, a directory that is not writable, a full disk) is a
 * `PcodxRuntimeError` naming the flag and the file with what is wrong in words, so the turn does
 * not run and nothing is recorded, where Node's own message (`ENOENT: no such file or directory,
 * open '/proc/self/x'`) was printed.
 */
export function writeContext(path: string, items: unknown[]): void {
  try {
    writeNewPrivate(path, `${JSON.stringify(items, null, 2)}\n`);
  } catch (error) {
    throw new PcodxRuntimeError(`cannot write --context-out ${path}: ${systemErrorWords(error)}; the turn was not run and nothing was recorded`, { cause: error });
  }
}
