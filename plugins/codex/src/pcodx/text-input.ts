import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { systemErrorWords } from '@cordon/plugin-api';
import { PcodxUsageError } from './errors.js';

/** The `--text` / `--text-file` pair of a command. */
export interface TextFlags {
  readonly text?: string;
  readonly textFile?: string;
}

/** How a command takes text (the Rust pcodx, SichangHe/partial_compact_codex). */
export interface TextRules {
  /** Neither flag is an error when true; otherwise the result is undefined. */
  readonly required: boolean;
  /** False where the command's own loop owns stdin (`resume`, `interactive`): `--text-file -` is refused. */
  readonly stdinAllowed: boolean;
  /** Base for a relative `--text-file` (default: the process cwd). */
  readonly cwd?: string;
  /** Where `-` reads from (default: process.stdin). */
  readonly stdin?: NodeJS.ReadableStream;
}

/** Text read from the flags; `file` is the absolute path when it came from a file. */
export interface TextInput {
  readonly text: string;
  readonly file?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads the text a command was given. Both flags together, neither (when required), an empty
 * text, `-` where stdin is not the command's, an unreadable file and bytes that are not UTF-8 are
 * `PcodxUsageError`s. File and stdin bytes are decoded strictly and kept exactly, BOM and line
 * endings included.
 */
export async function readTextInput(flags: TextFlags, rules: TextRules): Promise<TextInput | undefined> {
  if (flags.text !== undefined && flags.textFile !== undefined) throw new PcodxUsageError('pass only one of --text or --text-file');
  if (flags.text === undefined && flags.textFile === undefined) {
    if (rules.required) throw new PcodxUsageError('pass --text TEXT or --text-file PATH (- for stdin)');
    return undefined;
  }
  let input: TextInput;
  if (flags.text !== undefined) {
    input = { text: flags.text };
  } else if (flags.textFile === '-') {
    if (!rules.stdinAllowed) throw new PcodxUsageError('--text-file - is not accepted here: stdin belongs to the interactive loop; pass a file path or --text');
    input = { text: decode(await readAll(rules.stdin ?? process.stdin), 'stdin') };
  } else {
    const file = resolve(rules.cwd ?? process.cwd(), flags.textFile!);
    input = { text: decode(await readTextFile(file, '--text-file'), file), file };
  }
  if (input.text.length === 0) throw new PcodxUsageError(`text is empty${input.file ? ` (${input.file})` : ''}`);
  return input;
}

/** Strict UTF-8 decoding that keeps a BOM; `what` names the source in the error. */
export function decode(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PcodxUsageError(`${what} is not valid UTF-8 text`);
  }
}

/**
 * The most bytes pcodx reads as one message (`--text-file`, stdin, `/record-file`): 256 MiB. A file
 * or device without an end (`/dev/zero`) was read until memory ran out, and a text above what one
 * JavaScript string holds (about 512 Mi UTF-16 units) was refused as "not valid UTF-8"; this
 * bound sits well below that and below SQLite's own limit on one value (1,000,000,000 bytes).
 */
export const MAX_TEXT_BYTES = 256 * 1024 * 1024;

/** The refusal of a text above {@link MAX_TEXT_BYTES}, naming where it came from. */
function tooLarge(what: string): PcodxUsageError {
  return new PcodxUsageError(`${what} holds more than ${MAX_TEXT_BYTES} bytes (256 MiB), the most pcodx reads as one message; nothing was recorded`);
}

/**
 * The bytes of `file` (a regular file, a FIFO, a device: whatever `open(2)` reads), read up to
 * {@link MAX_TEXT_BYTES} and refused past it without reading further. A file that cannot be read
 * is a `PcodxUsageError` naming it (as `flag file` when `flag` is given) with what is wrong in words.
 */
export async function readTextFile(file: string, flag?: string): Promise<Buffer> {
  const named = flag === undefined ? file : `${flag} ${file}`;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const handle = await open(file, 'r');
    try {
      // A regular file says its size: one above the bound is refused without reading it.
      const stat = await handle.stat();
      if (stat.isFile() && stat.size > MAX_TEXT_BYTES) throw tooLarge(named);
      // One read buffer; each read's bytes are copied out (a pipe hands over 64 KiB at a time).
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > MAX_TEXT_BYTES) throw tooLarge(named);
        chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof PcodxUsageError) throw error;
    throw new PcodxUsageError(`cannot read ${named}: ${systemErrorWords(error)}`);
  }
  return Buffer.concat(chunks, total);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > MAX_TEXT_BYTES) throw tooLarge('stdin');
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}
