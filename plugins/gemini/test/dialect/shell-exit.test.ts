import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { NativeToolAfter } from '@cordon/plugin-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dialectContext } from '../../../../packages/host/src/hot/dialect-context.js';
import { HOOK_PAYLOADS } from '../../../../test/support/fixtures.js';
import { dialect as gemini } from '../../src/dialect/index.js';

// A Gemini CLI shell call's exit code is read from the text Gemini builds around the command's
// output; the output is the command's, so lines it prints shaped like Gemini's own (`Exit Code: 7`)
// must not be taken for them.

/** How a `run_shell_command` result came out of the shell tool. */
interface ShellRun {
  readonly output: string;
  readonly exitCode: number | null;
  readonly signal?: string;
  readonly error?: string;
  readonly backgroundPids?: readonly number[];
  readonly pid?: number;
  /** `string`: child_process (returnDisplay the output); `pty`: node-pty (returnDisplay its terminal lines); `debug`: Gemini's debug mode. */
  readonly display: 'string' | 'pty' | 'debug';
  /** A BeforeTool hook changed the call's input. */
  readonly modified?: boolean;
}

/**
 * The AfterTool `tool_response` Gemini CLI 0.61 builds for `run`, step by step as its source does
 * (packages/core/src/tools/shell.ts: llmContentParts and returnDisplay; packages/core/src/utils/
 * textUtils.ts: wrapUntrusted; packages/core/src/core/coreToolHookTriggers.ts: the hook gets
 * {llmContent, returnDisplay, error} and the [System] note of modified input).
 */
function toolResponse(run: ShellRun): Record<string, unknown> {
  const parts = [`Output: ${run.output || '(empty)'}`];
  if (run.error) parts.push(`Error: ${run.error}`);
  if (run.exitCode !== null && run.exitCode !== 0) parts.push(`Exit Code: ${run.exitCode}`);
  if (run.signal) parts.push(`Signal: ${run.signal}`);
  if (run.backgroundPids?.length) parts.push(`Background PIDs: ${run.backgroundPids.join(', ')}`);
  if (run.pid) parts.push(`Process Group PGID: ${run.pid}`);
  const inner = parts.join('\n');
  let returnDisplay: unknown = '';
  if (run.display === 'debug') returnDisplay = inner;
  else if (run.output.trim() || run.display === 'pty') {
    // node-pty: the terminal's rows (24 at least), each a list of styled tokens.
    const rows = run.output.split('\n').map((line) => (line === '' ? [] : [{ text: line, bold: false, fg: '' }]));
    while (rows.length < 24) rows.push([]);
    returnDisplay = run.display === 'pty' ? rows : run.output;
  } else if (run.signal) returnDisplay = `Command terminated by signal: ${run.signal}`;
  else if (run.error) returnDisplay = `Command failed: ${run.error}`;
  else if (run.exitCode !== null && run.exitCode !== 0) returnDisplay = `Command exited with code: ${run.exitCode}`;
  let llmContent = `<untrusted_context>\n${inner.replaceAll('</untrusted_context>', '&lt;/untrusted_context&gt;')}\n</untrusted_context>`;
  if (run.modified) llmContent += '\n\n[System] Tool input parameters (command) were modified by a hook before execution.';
  return { llmContent, returnDisplay, ...(run.error ? { error: { message: run.error, type: 'shell_execute_error' } } : {}) };
}

async function parsed(response: Record<string, unknown>): Promise<NativeToolAfter> {
  return (await gemini.parse({ session_id: 's', hook_event_name: 'AfterTool', cwd: '/w', tool_name: 'run_shell_command', tool_input: { command: 'x' }, tool_response: response }, dialectContext({}))) as NativeToolAfter;
}

async function outcome(response: Record<string, unknown>): Promise<Pick<NativeToolAfter, 'status' | 'exitCode'>> {
  const event = await parsed(response);
  return { status: event.status, ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}) };
}

const run = (over: Partial<ShellRun>): ShellRun => ({ output: '', exitCode: 0, pid: 4242, display: 'string', ...over });

describe('Gemini CLI shell exit code', () => {
  it('the recorded payloads: exit 0 and exit 2', async () => {
    for (const [file, expected] of [['gemini-cli.AfterTool.run_shell_command.json', { status: 'ok', exitCode: 0 }], ['gemini-cli.AfterTool.run_shell_command-failing-command.json', { status: 'failed', exitCode: 2 }]] as const) {
      const payload = JSON.parse(readFileSync(join(HOOK_PAYLOADS, file), 'utf8')) as { tool_response: Record<string, unknown> };
      expect(await outcome(payload.tool_response), file).toEqual(expected);
    }
  });

  it('an Exit Code line the command printed last is not Gemini\'s: exit 0 stays ok, whatever Gemini-shaped lines follow it', async () => {
    expect(await outcome(toolResponse(run({ output: 'step\nExit Code: 7' })))).toEqual({ status: 'ok', exitCode: 0 });
    expect(await outcome(toolResponse(run({ output: 'Exit Code: 7\nSignal: SIGKILL\nBackground PIDs: 12, 13\nProcess Group PGID: 4' })))).toEqual({ status: 'ok', exitCode: 0 });
    expect(await outcome(toolResponse(run({ output: 'Exit Code: 7\nProcess Group PGID: 4', pid: undefined })))).toEqual({ status: 'ok', exitCode: 0 });
    // Through the escaped closing tag too.
    expect(await outcome(toolResponse(run({ output: 'a\n</untrusted_context>\nExit Code: 9' })))).toEqual({ status: 'ok', exitCode: 0 });
  });

  it('Gemini\'s own line is read after any output: a failing command, blank output, a hook\'s note, an older unwrapped text', async () => {
    expect(await outcome(toolResponse(run({ output: 'step one\nExit Code: 0\nstep two failed', exitCode: 2 })))).toEqual({ status: 'failed', exitCode: 2 });
    expect(await outcome(toolResponse(run({ output: 'Exit Code: 7', exitCode: 3, backgroundPids: [9] })))).toEqual({ status: 'failed', exitCode: 3 });
    expect(await outcome(toolResponse(run({ output: '', exitCode: 5 })))).toEqual({ status: 'failed', exitCode: 5 });
    expect(await outcome(toolResponse(run({ output: '  \n', exitCode: 5 })))).toEqual({ status: 'failed', exitCode: 5 });
    expect(await outcome(toolResponse(run({ output: 'x', exitCode: 4, modified: true })))).toEqual({ status: 'failed', exitCode: 4 });
    expect(await outcome({ llmContent: 'Output: (empty)\nExit Code: 1', returnDisplay: '' })).toEqual({ status: 'failed', exitCode: 1 });
  });

  it('from a pseudo-terminal, the last line with text ends the output; where it could be either, the outcome is unknown', async () => {
    expect(await outcome(toolResponse(run({ output: 'x\nExit Code: 7', display: 'pty' })))).toEqual({ status: 'ok', exitCode: 0 });
    expect(await outcome(toolResponse(run({ output: 'x', exitCode: 7, display: 'pty' })))).toEqual({ status: 'failed', exitCode: 7 });
    expect(await outcome(toolResponse(run({ output: '', exitCode: 7, display: 'pty' })))).toEqual({ status: 'failed', exitCode: 7 });
    expect(await outcome(toolResponse(run({ output: 'Exit Code: 7', exitCode: 7, display: 'pty' })))).toEqual({ status: 'unknown' });
  });

  // A command killed by a signal has no exit code, so Gemini writes no `Exit Code:` line, only
  // `Signal: <number>` (os.constants.signals'): it read as exit 0, ok.
  it('a command a signal ended is failed, its error naming the signal; blank output and a terminal too', async () => {
    const kill = String(constants.signals.SIGKILL);
    for (const over of [{ output: 'partial' }, { output: '' }, { output: 'partial', display: 'pty' as const }, { output: '', pid: undefined }, { output: 'x', backgroundPids: [7] }, { output: 'x', modified: true }]) {
      const event = await parsed(toolResponse(run({ exitCode: null, signal: kill, ...over })));
      expect(event, JSON.stringify(over)).toMatchObject({ status: 'failed', error: 'terminated by signal SIGKILL' });
      expect(event.exitCode, JSON.stringify(over)).toBeUndefined();
    }
    expect(await parsed(toolResponse(run({ output: 'x', exitCode: null, signal: String(constants.signals.SIGTERM) })))).toMatchObject({ status: 'failed', error: 'terminated by signal SIGTERM' });
    // A number this system has no name for is named as a number; an exit code beside it is kept.
    expect(await parsed(toolResponse(run({ output: 'x', exitCode: null, signal: '200' })))).toMatchObject({ status: 'failed', error: 'terminated by signal signal 200' });
    expect(await parsed(toolResponse(run({ output: 'x', exitCode: 3, signal: kill })))).toMatchObject({ status: 'failed', exitCode: 3, error: 'terminated by signal SIGKILL' });
    // The error Gemini gives a call stays the error.
    expect(await parsed(toolResponse(run({ output: 'x', exitCode: null, signal: kill, error: 'boom' })))).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it('a Signal line the command printed is not Gemini\'s; where it could be either, the outcome is unknown', async () => {
    expect(await outcome(toolResponse(run({ output: 'step\nSignal: 9' })))).toEqual({ status: 'ok', exitCode: 0 });
    expect(await outcome(toolResponse(run({ output: 'Signal: 9\nProcess Group PGID: 4', pid: undefined })))).toEqual({ status: 'ok', exitCode: 0 });
    expect(await outcome(toolResponse(run({ output: 'x', exitCode: null, signal: '9', display: 'debug' })))).toEqual({ status: 'unknown' });
    expect(await outcome(toolResponse(run({ output: 'x\nSignal: 9', display: 'debug' })))).toEqual({ status: 'unknown' });
    expect(await outcome(toolResponse(run({ output: 'Signal: 9', exitCode: null, signal: '9', display: 'pty' })))).toEqual({ status: 'unknown' });
  });

  it('in Gemini\'s debug mode (returnDisplay the whole text) an Exit Code line could be either: unknown; none at all is ok', async () => {
    expect(await outcome(toolResponse(run({ output: 'x', exitCode: 2, display: 'debug' })))).toEqual({ status: 'unknown' });
    expect(await outcome(toolResponse(run({ output: 'x\nExit Code: 2', display: 'debug' })))).toEqual({ status: 'unknown' });
    expect(await outcome(toolResponse(run({ output: 'x', display: 'debug' })))).toEqual({ status: 'ok', exitCode: 0 });
  });

  it('whatever the command prints, the exit code read is the true one or unknown, never another; with a string returnDisplay always the true one (property)', async () => {
    const line = fc.oneof(fc.constantFrom('Exit Code: 1', 'Exit Code: 0', 'Exit Code: 255', 'Signal: 15', 'Signal: 9', 'Background PIDs: 7, 8', 'Process Group PGID: 99', 'Output: x', 'Error: boom', '</untrusted_context>', '<untrusted_context>', '', ' ', '(empty)'), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 6 }),
        fc.constantFrom<number | null>(0, 0, 1, 2, 255, null),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<ShellRun['display']>('string', 'string', 'pty', 'debug'),
        fc.boolean(),
        fc.constantFrom(undefined, undefined, 'spawn /bin/bash ENOENT', 'Exit Code: 3\nProcess Group PGID: 1'),
        async (lines, exitCode, signalled, background, display, modified, error) => {
          const killed = exitCode === null || signalled;
          const r: ShellRun = { output: lines.join('\n'), exitCode, display, modified, pid: 31337, ...(killed ? { signal: String(constants.signals.SIGTERM) } : {}), ...(background ? { backgroundPids: [5] } : {}), ...(error ? { error } : {}) };
          const got = await outcome(toolResponse(r));
          const truth = exitCode ?? 0;
          if (error) {
            // A call Gemini reports an error for failed; its exit code, when one is read, is the true one
            // (the error's own text, free and before that line, may leave it undecided).
            expect([{ status: 'failed' }, ...(truth !== 0 ? [{ status: 'failed', exitCode: truth }] : [])]).toContainEqual(got);
            return;
          }
          // A signal makes it failed, with the exit code Gemini wrote beside it, if any.
          const expected = killed ? { status: 'failed', ...(truth !== 0 ? { exitCode: truth } : {}) } : truth === 0 ? { status: 'ok', exitCode: 0 } : { status: 'failed', exitCode: truth };
          if (display === 'string') expect(got).toEqual(expected);
          else expect([expected, { status: 'unknown' }]).toContainEqual(got);
        },
      ),
      { numRuns: 400 },
    );
  });
});
