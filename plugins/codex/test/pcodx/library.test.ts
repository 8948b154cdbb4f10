import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageIdLines, messageIdsHelper } from '../../src/pcodx/message-ids.js';
import { PROMPT_FRAGMENTS, type PromptName } from '../../src/pcodx/prompts/fragments.js';
import { fillPrompt, instructionPointer, isPromptName, placeholders } from '../../src/pcodx/prompts/fill.js';
import { parseRangeSpec } from '../../src/pcodx/range-spec.js';
import { pipedLines, splitFirst } from '../../src/pcodx/interactive.js';
import { readTextInput } from '../../src/pcodx/text-input.js';
import { jsonSink, textPiecesOut } from '../../src/pcodx/output.js';
import { shownJson } from '@cordon/plugin-api';

describe('compact-many --range syntax (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('splits at the first = and then the first ..; summaries keep later = and ..', () => {
    expect(parseRangeSpec('msg1..msg4=done')).toEqual({ from: 'msg1', to: 'msg4', summary: 'done' });
    expect(parseRangeSpec('cmp2..msg9=a=b..c==')).toEqual({ from: 'cmp2', to: 'msg9', summary: 'a=b..c==' });
    expect(parseRangeSpec('msg1...msg2=x')).toEqual({ from: 'msg1', to: '.msg2', summary: 'x' });
    expect(parseRangeSpec(' msg1 .. msg2 =  spaced summary ')).toEqual({ from: 'msg1', to: 'msg2', summary: '  spaced summary ' });
  });

  it('names what is missing', () => {
    expect(() => parseRangeSpec('msg1..msg2')).toThrow('compact-many range must be FROM..TO=SUMMARY');
    expect(() => parseRangeSpec('msg1.msg2=x')).toThrow('compact-many range must be FROM..TO=SUMMARY, with `..` between FROM and TO (got "msg1.msg2=x")');
    expect(() => parseRangeSpec('=x')).toThrow('compact-many range must be FROM..TO=SUMMARY, with `..` between FROM and TO (got "=x")');
    expect(() => parseRangeSpec(' ..msg2=x')).toThrow('must include FROM and TO');
    expect(() => parseRangeSpec('msg1..msg2=')).toThrow('must include FROM, TO, and SUMMARY');
  });
});

describe('current-session-message-ids helper (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `msg${i + 1}`);

  it('lists 8 ids a line with "- " and ", "', () => {
    expect(messageIdLines(['cmp1', 'msg3'])).toEqual(['- cmp1, msg3']);
    expect(messageIdLines(ids(17))).toEqual(['- msg1, msg2, msg3, msg4, msg5, msg6, msg7, msg8', '- msg9, msg10, msg11, msg12, msg13, msg14, msg15, msg16', '- msg17']);
    expect(messageIdLines(ids(96))).toHaveLength(12);
  });

  it('above 96 ids lists the first 16 and the last 80 with a line about the rest', () => {
    const lines = messageIdLines(ids(200));
    expect(lines).toHaveLength(2 + 1 + 10);
    expect(lines[1]).toBe('- msg9, msg10, msg11, msg12, msg13, msg14, msg15, msg16');
    expect(lines[2]).toBe('- … 104 ids between msg17 and msg120 are not listed; find older content with your search/read tools, then use its ids');
    expect(lines[3]).toBe('- msg121, msg122, msg123, msg124, msg125, msg126, msg127, msg128');
    expect(lines.at(-1)).toBe('- msg193, msg194, msg195, msg196, msg197, msg198, msg199, msg200');
    expect(messageIdLines(ids(97))[2]).toBe('- … 1 ids between msg17 and msg17 are not listed; find older content with your search/read tools, then use its ids');
  });

  it('says so when there are none, and fills the template at {{MESSAGE_ID_LINES}}', () => {
    expect(messageIdLines([])).toEqual(['- (no message ids yet: record or send a message first)']);
    expect(messageIdsHelper(['msg1'])).toBe(
      '# Visible message ids\n\nThese are the ids you can use as from_message_id and to_message_id; some hosts also list cmp... ids, which stand for earlier compactions.\n\n- msg1\n',
    );
  });
});

describe('prompt fragments (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  const values: Record<string, string> = {
    INSTRUCTION_POINTER: instructionPointer(),
    MESSAGE_ID_LINES: '- msg1, cmp2',
    CONTEXT_STATUS: 'current context window: 42k (37% full)',
    FROM_MESSAGE_ID: 'msg3',
    TO_MESSAGE_ID: 'msg9',
    CHECKPOINT_TITLE: 'parser fixed',
  };

  it('has the same names and placeholders as the shared prompt set', () => {
    const expected: Record<string, string[]> = {
      'partial-compact-instruction.md': [],
      'partial-compact-tool-description.md': ['INSTRUCTION_POINTER'],
      'partial-compact-instruction-pointer.md': [],
      'partial-compact-instruction-tool-description.md': [],
      'partial-compact-arg-ranges.md': [],
      'partial-compact-range-from-message-id.md': [],
      'partial-compact-range-to-message-id.md': [],
      'partial-compact-range-summary.md': [],
      'current-session-message-ids-tool-description.md': [],
      'current-session-message-ids.md': ['MESSAGE_ID_LINES'],
      'partial-compact-reminder.md': ['CONTEXT_STATUS'],
      'tui-partial-compact.md': ['INSTRUCTION_POINTER', 'CHECKPOINT_TITLE', 'FROM_MESSAGE_ID', 'TO_MESSAGE_ID'],
    };
    expect(Object.fromEntries(Object.entries(PROMPT_FRAGMENTS).map(([name, text]) => [name, placeholders(text)]))).toEqual(expected);
  });

  for (const name of Object.keys(PROMPT_FRAGMENTS) as PromptName[]) {
    it(`renders ${name} with every placeholder filled`, () => {
      const wanted = Object.fromEntries(placeholders(PROMPT_FRAGMENTS[name]).map((p) => [p, values[p]!]));
      const text = fillPrompt(name, wanted);
      expect(text).not.toMatch(/\{\{|\}\}/);
      expect(text.endsWith('\n')).toBe(true);
      for (const v of Object.values(wanted)) expect(text).toContain(v);
    });
  }

  it('renders the key fragments to the expected text', () => {
    expect(fillPrompt('partial-compact-tool-description.md', { INSTRUCTION_POINTER: instructionPointer() })).toBe(
      'Replace ranges of earlier messages in this session with summaries you write, so later turns see less stale context. Unless its text is already in your context, call partial_compact_instructions first and follow it.\n',
    );
    expect(fillPrompt('partial-compact-reminder.md', { CONTEXT_STATUS: values.CONTEXT_STATUS! })).toBe('current context window: 42k (37% full)\n');
    expect(fillPrompt('tui-partial-compact.md', { INSTRUCTION_POINTER: 'POINTER', FROM_MESSAGE_ID: 'msg3', TO_MESSAGE_ID: 'cmp4', CHECKPOINT_TITLE: 'T' })).toBe(
      'POINTER\n\nThe user marked a checkpoint named "T". Compact the range from msg3 to cmp4 with one partial_compact call whose summary keeps what the work after the checkpoint still needs. You may add further ranges to the same call if they do not overlap this one.\n',
    );
    const instruction = fillPrompt('partial-compact-instruction.md');
    expect(instruction.startsWith('<instruction name="agent-partial-compact">\n')).toBe(true);
    expect(instruction.trimEnd().endsWith('</instruction>')).toBe(true);
    for (const must of ['"ranges"', 'from_message_id', 'to_message_id', 'summary', 'partial_compact_current_session_message_ids', 'tail compaction', 'full-session compaction', 'half', 'session log']) {
      expect(instruction).toContain(must);
    }
  });

  it('refuses a missing value, a value with no placeholder, and knows its names', () => {
    expect(() => fillPrompt('partial-compact-reminder.md')).toThrow('prompt partial-compact-reminder.md needs {{CONTEXT_STATUS}}');
    expect(() => fillPrompt('partial-compact-instruction.md', { EXTRA: 'x' })).toThrow('has no placeholder {{EXTRA}}');
    expect(fillPrompt('partial-compact-reminder.md', { CONTEXT_STATUS: '{{NOT_EXPANDED}}' })).toBe('{{NOT_EXPANDED}}\n');
    expect(isPromptName('tui-partial-compact.md')).toBe(true);
    expect(isPromptName('toString')).toBe(false);
  });
});

describe('interactive argument splitting', () => {
  it('ends the first token at the first whitespace character and consumes only that one', () => {
    expect(splitFirst('/record user  two spaces')).toEqual(['/record', 'user  two spaces']);
    expect(splitFirst('user\tx')).toEqual(['user', 'x']);
    expect(splitFirst('/show')).toEqual(['/show', undefined]);
    expect(splitFirst('/turn ')).toEqual(['/turn', '']);
  });
});

describe('--text / --text-file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pcodx-text-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads --text as given, a file relative to cwd byte-exact, and - from the stream', async () => {
    expect(await readTextInput({ text: ' x ' }, { required: true, stdinAllowed: true })).toEqual({ text: ' x ' });
    writeFileSync(join(dir, 'f.txt'), '\uFEFFa\r\n');
    expect(await readTextInput({ textFile: 'f.txt' }, { required: true, stdinAllowed: true, cwd: dir })).toEqual({ text: '\uFEFFa\r\n', file: join(dir, 'f.txt') });
    expect(await readTextInput({ textFile: '-' }, { required: true, stdinAllowed: true, stdin: Readable.from([Buffer.from('pi'), Buffer.from('ped\n')]) })).toEqual({ text: 'piped\n' });
    expect(await readTextInput({}, { required: false, stdinAllowed: false })).toBeUndefined();
  });

  it('refuses what the Rust pcodx refuses', async () => {
    await expect(readTextInput({ text: 'a', textFile: 'b' }, { required: false, stdinAllowed: true })).rejects.toThrow('pass only one of --text or --text-file');
    await expect(readTextInput({}, { required: true, stdinAllowed: true })).rejects.toThrow('pass --text TEXT or --text-file PATH');
    await expect(readTextInput({ text: '' }, { required: true, stdinAllowed: true })).rejects.toThrow('text is empty');
    await expect(readTextInput({ textFile: '-' }, { required: false, stdinAllowed: false })).rejects.toThrow('stdin belongs to the interactive loop');
    writeFileSync(join(dir, 'bad.txt'), Buffer.from([0xff, 0xfe, 0x00]));
    await expect(readTextInput({ textFile: join(dir, 'bad.txt') }, { required: true, stdinAllowed: true })).rejects.toThrow('is not valid UTF-8 text');
  });
});

describe('the --json collector', () => {
  // jsonText() escapes a render in runs of about a million units: a cut inside a surrogate pair
  // would print two lone-surrogate escapes, and one between the `#`s of `##[` would leave the CI
  // prefix unescaped. Each case puts such a character at and around a cut, and across pieces.
  it('prints in pieces exactly the text of the whole object, whatever falls at a cut', async () => {
    const run = 1024 * 1024;
    const tails = ['##[error]x', '😀😀', '#😀##[', '\u202e\u0000\u009b#'];
    for (const tail of tails) {
      for (let shift = -3; shift <= 3; shift++) {
        const sink = jsonSink();
        sink.out('session_id=s');
        sink.out('msg1');
        await textPiecesOut(sink, async (write) => {
          await write(`${'a'.repeat(run + shift)}${tail}${'b'.repeat(run)}${tail}`);
          await write('#');
          await write(`#[${tail}`);
        });
        const whole = `${shownJson(sink.document(), 2)}\n`;
        expect([...sink.jsonText()].join('') === whole, `${JSON.stringify(tail)} shift ${shift}`).toBe(true);
      }
    }
    const plain = jsonSink();
    plain.out('visible_ids=msg1,msg2');
    expect([...plain.jsonText()].join('')).toBe('{\n  "visible_ids": [\n    "msg1",\n    "msg2"\n  ]\n}\n');
  });
});

describe('piped lines of the interactive loop', () => {
  it('split at \\n only, dropping one \\r before it, with characters and CRLF cut across chunks', async () => {
    const euro = Buffer.from('€', 'utf8');
    const chunks = [Buffer.from('a\r'), Buffer.from('\nb\rc\n'), euro.subarray(0, 1), euro.subarray(1), Buffer.from('\r\r\n\nlast\r')];
    const lines: unknown[] = [];
    for await (const line of pipedLines(Readable.from(chunks))) lines.push(line);
    expect(lines).toEqual(['a', 'b\rc', '€\r', '', 'last']);
  });

  // A line that was not UTF-8 was recorded with U+FFFD in place of its bytes (`--text-file -`
  // refuses such input); now it is an error naming the line, and the lines around it are kept.
  it('a line that is not UTF-8 is an error naming it, not text with U+FFFD', async () => {
    const chunks = [Buffer.from('ok\nbad '), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('€ fine\r\n')];
    const lines: Array<string | Error> = [];
    for await (const line of pipedLines(Readable.from(chunks))) lines.push(line);
    expect(lines.map((l) => (typeof l === 'string' ? l : `error: ${l.message}`))).toEqual(['ok', 'error: line 2 of stdin is not valid UTF-8 text; it was not recorded', '€ fine']);
  });

  // A line above 256 MiB was gathered whole, and the whole of it searched for a line feed at every
  // chunk: 600 MB without one ran for minutes, then out of memory. Now its bytes are dropped past
  // the bound, the line is an error once it ends, and the next line reads as usual.
  it('a line above 256 MiB is an error once it ends, read in one pass without being kept', async () => {
    const mib = Buffer.alloc(1024 * 1024, 'a');
    async function* input(): AsyncGenerator<Buffer> {
      yield Buffer.from('first\n');
      for (let i = 0; i < 257; i++) yield mib;
      yield Buffer.from('\nnext\n');
    }
    const lines: Array<string | Error> = [];
    for await (const line of pipedLines(input())) lines.push(line);
    expect(lines.map((l) => (typeof l === 'string' ? l : `error: ${l.message}`))).toEqual([
      'first',
      'error: line 2 of stdin holds more than 268435456 bytes (256 MiB), the most pcodx reads as one message; it was not recorded',
      'next',
    ]);
  }, 60_000);
});
