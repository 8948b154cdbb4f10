/**
 * How a Gemini CLI `run_shell_command` result says the command's exit code, read so that nothing
 * the command printed can say it instead.
 *
 * What the AfterTool hook gets (Gemini CLI 0.61, packages/core/src/core/coreToolHookTriggers.ts,
 * https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/core/coreToolHookTriggers.ts):
 * `tool_response` is `{llmContent, returnDisplay, error}` of the tool's result. No field holds
 * the exit code (the result's `data.exitCode` is not passed), so it is read from `llmContent`,
 * which the shell tool builds (packages/core/src/tools/shell.ts,
 * https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/tools/shell.ts) as
 * these lines joined by `\n`:
 *
 *     Output: <the command's output, or "(empty)">
 *     Error: <message>            only when the process could not run
 *     Exit Code: <n>              only when it is not 0 and not null (a signal)
 *     Signal: <number>            only when a signal ended it: its number on this system
 *                                 (packages/core/src/services/shellExecutionService.ts maps
 *                                 child_process's name through os.constants.signals; node-pty
 *                                 gives the number)
 *     Background PIDs: <a, b>     only when it left processes behind (not on Windows)
 *     Process Group PGID: <pid>   when the pid is known
 *
 * then wrapped as `<untrusted_context>\n…\n</untrusted_context>` with every
 * `</untrusted_context>` inside escaped (packages/core/src/utils/textUtils.ts `wrapUntrusted`;
 * older versions did not wrap), and, when a hook changed the call's input, followed by
 * `\n\n[System] Tool input parameters (…) were modified by a hook before execution.`
 * (coreToolHookTriggers.ts). A cancelled, backgrounded or summarised call has another text.
 *
 * The output can end with lines of exactly that shape (`printf 'Exit Code: 7\n'` exits 0), so the
 * lines after it are Gemini's only where the output is known to end. `returnDisplay` tells
 * where: it is the output itself when that is not blank (a string; or, from a pseudo-terminal,
 * the terminal's lines as styled tokens, whose last non-blank line is the output's last), a
 * summary when it is blank, and the whole unwrapped text in Gemini's debug mode (then nothing
 * tells where the output ends). {@link geminiShellExit} takes every way of reading Gemini's lines
 * off the end of the text in Gemini's order, keeps those that leave an output ending where
 * `returnDisplay` says it does, and answers only when they agree (on the exit code and the
 * signal).
 */

import { constants } from 'node:os';

/** What {@link geminiShellExit} makes of a shell result. */
export type GeminiShellExit =
  /**
   * Gemini's layout, read without doubt: `exitCode` is its `Exit Code:` line's number, 0 without
   * one; `signal`, the signal its `Signal:` line names, by name where this system knows the
   * number (`SIGKILL`, else `signal 64`), absent without one (a killed command has no exit code).
   */
  | { readonly kind: 'read'; readonly exitCode: number; readonly signal?: string }
  /** Gemini's layout, but the command's output could have written the lines that say the exit code. */
  | { readonly kind: 'ambiguous' }
  /** Not that layout: a cancelled, backgrounded or summarised call, or not a shell result's text. */
  | { readonly kind: 'other' };

const OPEN = '<untrusted_context>\n';
const CLOSE = '\n</untrusted_context>';
const OUTPUT = 'Output: ';
/** The note Gemini appends after the wrapped text when a hook changed the call's input. */
const MODIFIED = /\n\n\[System\] Tool input parameters \(.*\) were modified by a hook before execution\.$/s;

/** Gemini's lines after the output (and its `Error:` line), in the order it writes them, each optional. */
const TRAILER: readonly RegExp[] = [/^Exit Code: (-?\d+)$/, /^Signal: (\S+)$/, /^Background PIDs: \d+(?:, \d+)*$/, /^Process Group PGID: \d+$/];

/** What `returnDisplay` says of where the output ends. */
type OutputEnd =
  | { readonly kind: 'exact'; readonly output: string }
  | { readonly kind: 'blank' }
  | { readonly kind: 'last-line'; readonly line: string }
  | { readonly kind: 'unknown' };

/**
 * The exit code of a Gemini CLI `run_shell_command` result, from its `llmContent` and
 * `returnDisplay` as the AfterTool hook gets them (see the module's description). Never throws.
 */
export function geminiShellExit(llmContent: unknown, returnDisplay: unknown): GeminiShellExit {
  if (typeof llmContent !== 'string') return { kind: 'other' };
  const inner = innerText(llmContent);
  if (inner === undefined || !inner.startsWith(OUTPUT)) return { kind: 'other' };
  const end = outputEnd(inner, returnDisplay);
  const lines = inner.split('\n');
  let answer: { exitCode: number; signal?: string } | undefined;
  // The last `taken` lines are read as Gemini's trailer, in its order; at least the `Output:` line stays.
  for (let taken = 0, stage = TRAILER.length; taken < lines.length; taken++) {
    if (taken > 0) {
      const line = lines[lines.length - taken]!;
      let next = stage;
      while (next > 0 && !TRAILER[next - 1]!.test(line)) next--;
      if (next === 0) break;
      stage = next - 1;
    }
    if (!outputFits(lines.slice(0, lines.length - taken).join('\n'), end)) continue;
    const reading = trailerSays(lines.slice(lines.length - taken));
    if (answer !== undefined && (answer.exitCode !== reading.exitCode || answer.signal !== reading.signal)) return { kind: 'ambiguous' };
    answer = reading;
  }
  return answer === undefined ? { kind: 'ambiguous' } : { kind: 'read', ...answer };
}

/** The text inside Gemini's `<untrusted_context>` wrapping (the first closing tag is its own: any inside is escaped), or the whole text of an older version's unwrapped result. */
function innerText(llm: string): string | undefined {
  if (llm.startsWith(OPEN)) {
    const close = llm.indexOf(CLOSE, OPEN.length);
    return close < 0 ? undefined : llm.slice(OPEN.length, close);
  }
  return llm.replace(MODIFIED, '');
}

/** What the trailer lines say: the exit code of their `Exit Code:` line, else 0, and the signal of their `Signal:` line, if any. */
function trailerSays(trailer: readonly string[]): { exitCode: number; signal?: string } {
  const code = trailer.length > 0 ? TRAILER[0]!.exec(trailer[0]!) : null;
  const exitCode = code ? Number(code[1]) : 0;
  for (const line of trailer.slice(0, 2)) {
    const signal = TRAILER[1]!.exec(line);
    if (signal) return { exitCode, signal: signalName(signal[1]!) };
  }
  return { exitCode };
}

/** A signal as Gemini writes it (its number on this system) by its name: `9` → `SIGKILL`, an unknown number `signal 64`, a name as it is. */
function signalName(written: string): string {
  if (!/^\d+$/.test(written)) return written;
  const n = Number(written);
  for (const [name, number] of Object.entries(constants.signals)) if (number === n) return name;
  return `signal ${written}`;
}

/** `text` as `wrapUntrusted` leaves it inside the wrapping. */
function escaped(text: string): string {
  return text.replaceAll('</untrusted_context>', '&lt;/untrusted_context&gt;');
}

/** What `returnDisplay` says of the output in `inner` (see the module's description). */
function outputEnd(inner: string, display: unknown): OutputEnd {
  if (typeof display === 'string') {
    if (display === inner) return { kind: 'unknown' }; // debug mode: the whole text again
    const output = escaped(display);
    if (display.trim() !== '' && inner.startsWith(OUTPUT + output) && (inner.length === OUTPUT.length + output.length || inner[OUTPUT.length + output.length] === '\n')) return { kind: 'exact', output };
    return { kind: 'blank' };
  }
  if (Array.isArray(display)) {
    // A pseudo-terminal's lines, each a list of styled tokens: the last with text ends the output.
    for (let i = display.length - 1; i >= 0; i--) {
      const row = display[i];
      const text = Array.isArray(row) ? row.map((token) => (token && typeof token === 'object' && typeof (token as { text?: unknown }).text === 'string' ? (token as { text: string }).text : '')).join('').trimEnd() : '';
      if (text !== '') return { kind: 'last-line', line: escaped(text) };
    }
    return { kind: 'blank' };
  }
  return { kind: 'unknown' };
}

/** Whether `before` (the text before a reading of Gemini's trailer) is an output, and its `Error:` line, ending where `end` says. */
function outputFits(before: string, end: OutputEnd): boolean {
  switch (end.kind) {
    case 'unknown':
      return true;
    case 'exact': {
      const output = OUTPUT + end.output;
      return before === output || before.startsWith(`${output}\nError: `);
    }
    case 'blank':
      return /^Output: (?:\(empty\)|\s*)(?:\nError: [\s\S]*)?$/.test(before);
    case 'last-line':
      // Blank lines may follow it (the terminal's text keeps none, the output as read may); so may Gemini's `Error:` line.
      for (let at = before.length; at >= 0; at = before.lastIndexOf('\nError: ', at - 1)) {
        if (before.slice(0, at).trimEnd().endsWith(end.line)) return true;
        if (at === 0) break;
      }
      return false;
  }
}
