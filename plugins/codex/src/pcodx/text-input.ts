import { readFile } from 'node:fs/promises';
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
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw new PcodxUsageError(`cannot read --text-file ${file}: ${systemErrorWords(error)}`);
    }
    input = { text: decode(bytes, file), file };
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

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
