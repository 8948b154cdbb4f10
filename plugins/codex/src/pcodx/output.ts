import { shownJson, writeOutput, type LedgerCompactResult, type LedgerUncompactResult } from '@cordon/plugin-api';

/** Where a pcodx action prints: whole lines, a newline is added to each. */
export interface Sink {
  out(line: string): void;
  err(line: string): void;
  /** A block of text that is not `key=value` data (a render); on stdout like {@link out}. */
  text?(block: string): void;
  /**
   * Raw stdout text, no newline added: where a sink has it, a render and long runs of lines go
   * out in pieces as they are read ({@link textPiecesOut}, {@link linesOut}) instead of as one
   * string. A promise returned means the reader is behind: the next piece waits for it; `false`
   * means the reader has gone (`pcodx show | head`): nothing more needs making. Sinks that keep
   * blocks apart (`--json`) or lines (tests) have none.
   */
  write?(text: string): void | boolean | Promise<void | boolean>;
  /**
   * A text block (a render) handed over in the pieces it was read in, kept apart (`--json`):
   * joined they are the block, which may be longer than one JavaScript string can hold.
   */
  pieces?(pieces: readonly string[]): void;
  /**
   * Says that what follows on stdout is a list (`ids`, `sessions`), so a sink that keeps lines
   * apart (`--json`) gives it even when it is empty: `"lines": []`, not no field at all.
   */
  listed?(): void;
}

/**
 * A sink on the standard descriptors (`writeOutput` of the plugin API: straight to the descriptor,
 * without creating Node's stdout/stderr streams, about 5 ms of a `turn` whose stderr is a pipe);
 * long output waits when a stream has to take it and asks to ({@link Sink.write}).
 */
export const processSink: Sink = {
  out: (line) => void writeOutput(1, `${line}\n`),
  err: (line) => void writeOutput(2, `${line}\n`),
  write: (text) => writeOutput(1, text),
};

/**
 * {@link processSink} with the host's terminal escaping (`escape`, `api.services.terminal.lines`):
 * stderr always passes through it (`error: …`, `key=value` lines naming what was typed), as the
 * host's own messages do, so an ESC or BEL shows as `\u001b`, `\u0007` and is not acted on;
 * stdout only when `stdoutTerminal`: piped or redirected, a render is data (the prompt Codex gets)
 * and stays byte for byte ({@link commandOutput}).
 */
export function escapedSink(escape: (text: string) => string, stdoutTerminal: boolean): Sink {
  return {
    out: stdoutTerminal ? (line) => void writeOutput(1, `${escape(line)}\n`) : processSink.out,
    err: (line) => void writeOutput(2, `${escape(line)}\n`),
    write: stdoutTerminal ? (text) => writeOutput(1, escape(text)) : processSink.write,
  };
}

/** About how much text {@link linesOut} gathers into one write. */
const WRITE_CHUNK = 64 * 1024;

/**
 * Prints `lines` on stdout as {@link Sink.out} would, one line each: on a sink that can
 * {@link Sink.write}, in writes of about 64 KiB (100,000 ids written one by one cost more than
 * reading them), each waited for when the sink asks to. Resolves false once the sink says its
 * reader has gone (the rest is not written), else true.
 */
export async function linesOut(sink: Sink, lines: readonly string[]): Promise<boolean> {
  if (!sink.write) {
    for (const line of lines) sink.out(line);
    return true;
  }
  let chunk = '';
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length >= WRITE_CHUNK) {
      if ((await sink.write(chunk)) === false) return false;
      chunk = '';
    }
  }
  return chunk ? (await sink.write(chunk)) !== false : true;
}

/**
 * Prints a text block (a render) that `produce` hands over in pieces: written as they come and a
 * newline after the last on a sink that can {@link Sink.write} (`produce` waits for each write it
 * is handed back); otherwise joined and printed as one block, as {@link Sink.text} (or a line)
 * where the sink keeps blocks apart.
 */
export async function textPiecesOut(sink: Sink, produce: (write: (piece: string) => void | boolean | Promise<void | boolean>) => Promise<void>): Promise<void> {
  if (sink.write) {
    const write = sink.write;
    let gone = false;
    // `false` back from the sink (its reader has gone) tells `produce` to stop reading.
    await produce(async (piece) => !(gone ||= (await write(piece)) === false));
    if (!gone) await write('\n');
    return;
  }
  const pieces: string[] = [];
  await produce((piece) => void pieces.push(piece));
  if (sink.pieces) sink.pieces(pieces);
  else textOut(sink, pieces.join(''));
}

/** Prints a text block (a render): as a block where the sink keeps them apart (`--json`), else a line. */
export function textOut(sink: Sink, block: string): void {
  if (sink.text) sink.text(block);
  else sink.out(block);
}

/** Keys a command prints once per item (`compaction=cmp2 msg3..msg4`): always an array under `--json`. */
const LISTED = new Set(['compaction']);

/** A `key=value` line a pcodx command prints (`warning[cmp3]=…` is key `warning`, item `cmp3`). */
const FIELD = /^([a-z][a-z_]*)(?:\[([^\]\n]+)\])?=(.*)$/;

/** About how many UTF-16 units of a render {@link JsonSink.jsonText} escapes at once. */
const JSON_RUN = 1024 * 1024;

/**
 * Whether `text` may be cut before index `at` and each side escaped by `shownJson` alone, giving
 * the same characters as the whole: never inside a surrogate pair, and never after a `#` (the
 * first `#` of `##[` is escaped, so a `#` depends on what follows it).
 */
function cutsCleanly(text: string, at: number): boolean {
  const unit = text.charCodeAt(at - 1);
  return unit !== 0x23 && !(unit >= 0xd800 && unit <= 0xdbff);
}

/**
 * `pieces` (joined, one text) in runs of about `size` UTF-16 units, each cut where
 * {@link cutsCleanly} allows; joined, the runs are the pieces joined.
 */
function* cleanRuns(pieces: readonly string[], size: number): Generator<string> {
  let carry = '';
  for (const piece of pieces) {
    const text = carry + piece;
    let start = 0;
    while (text.length - start > size) {
      let cut = start + size;
      while (cut < text.length && !cutsCleanly(text, cut)) cut++;
      if (cut >= text.length) break;
      yield text.slice(start, cut);
      start = cut;
    }
    let end = text.length;
    while (end > start && !cutsCleanly(text, end)) end--;
    if (end > start) yield text.slice(start, end);
    carry = text.slice(end);
  }
  if (carry) yield carry;
}

/** The `--json` collector ({@link jsonSink}). */
export interface JsonSink extends Sink {
  /** The object to print once the command is done (its render joined into one string). */
  document(): Record<string, unknown>;
  /**
   * The text `shownJson(document(), 2)` and a newline, in pieces: the render escaped in runs of
   * about a million units, so a render whose JSON form is longer than one JavaScript string can
   * hold (NUL bytes take six characters each: a 100 MB message of them) is printed all the same.
   */
  jsonText(): Generator<string>;
}

/**
 * A sink for `--json`: every `key=value` line (stdout or stderr) becomes a field (a whole number
 * as a number, a `…_ids` list as an array), a key printed more than once an array
 * (`compaction`), `key[item]=` lines an object (`warning`: `{cmp3: …}`);
 * a render is `render`, other stdout lines (the ids of `pcodx ids`) are `lines`, an empty array
 * when a list was printed ({@link Sink.listed}) with nothing in it. `document()` is
 * the object to print once the command is done, `jsonText()` its text in pieces.
 */
export function jsonSink(): JsonSink {
  const fields: Record<string, unknown> = {};
  const lines: string[] = [];
  // A list was printed (`listed`): `lines` is given even when it is empty.
  let listing = false;
  let render: readonly string[] | undefined;
  const field = (line: string): boolean => {
    const m = FIELD.exec(line);
    if (!m) return false;
    const [, key, item, raw] = m as unknown as [string, string, string | undefined, string];
    // Counts as numbers, id lists as arrays; everything else as printed.
    const value: unknown = /^(0|[1-9]\d{0,15})$/.test(raw) ? Number(raw) : key.endsWith('_ids') ? (raw === '' ? [] : raw.split(',')) : raw;
    if (item !== undefined) {
      const bag = (fields[key] ??= {}) as Record<string, unknown>;
      bag[item] = value;
    } else if (LISTED.has(key)) fields[key] = [...((fields[key] as unknown[] | undefined) ?? []), value];
    else if (key in fields) fields[key] = [...(Array.isArray(fields[key]) && !key.endsWith('_ids') ? (fields[key] as unknown[]) : [fields[key]]), value];
    else fields[key] = value;
    return true;
  };
  return {
    out: (line) => void (field(line) || lines.push(line)),
    err: (line) => void field(line),
    text: (block) => void (render = [block]),
    pieces: (pieces) => void (render = pieces),
    listed: () => void (listing = true),
    document: () => ({ ...fields, ...(render !== undefined ? { render: render.join('') } : {}), ...(lines.length || listing ? { lines } : {}) }),
    *jsonText() {
      const text = shownJson({ ...fields, ...(render !== undefined ? { render: '' } : {}), ...(lines.length || listing ? { lines } : {}) }, 2);
      // The one top-level "render" key (values hold no raw line break or quote); its text goes between the quotes.
      const key = '\n  "render": ""';
      const at = render === undefined ? -1 : text.indexOf(key);
      if (at < 0) return yield `${text}\n`;
      yield text.slice(0, at + key.length - 1);
      for (const run of cleanRuns(render!, JSON_RUN)) yield shownJson(run).slice(1, -1);
      yield `${text.slice(at + key.length - 1)}\n`;
    },
  };
}

/** A sink that keeps lines in memory (tests, and callers that want the text). */
export function memorySink(): Sink & { readonly stdout: string[]; readonly stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => void stdout.push(l), err: (l) => void stderr.push(l) };
}

/** `visible_ids=a,b,c` (the Rust pcodx, SichangHe/partial_compact_codex). */
export const visibleIdsLine = (ids: readonly string[]): string => `visible_ids=${ids.join(',')}`;

/**
 * The `key=value` lines of a one-range compaction (the Rust pcodx, SichangHe/partial_compact_codex `compact`): `compaction_id`,
 * `n_messages_replaced`, an optional `warning`, `visible_ids`; `stored=false` closes a dry run.
 */
export function compactLines(result: LedgerCompactResult): string[] {
  const range = result.ranges[0]!;
  return [
    `session_id=${result.sessionId}`,
    `compaction_id=${range.id}`,
    `n_messages_replaced=${range.nMessagesReplaced}`,
    ...(range.warning ? [`warning=${range.warning}`] : []),
    visibleIdsLine(result.visibleIds),
    ...(result.stored ? [] : ['stored=false']),
  ];
}

/**
 * The lines of `compact-many` (the Rust pcodx, SichangHe/partial_compact_codex): counts, one `compaction=cmpN FROM..TO` per range
 * in request order, `warning[cmpN]=…` lines, `visible_ids`; `stored=false` closes a dry run.
 */
export function compactManyLines(result: LedgerCompactResult): string[] {
  return [
    `session_id=${result.sessionId}`,
    `n_ranges_compacted=${result.ranges.length}`,
    `n_messages_replaced=${result.nMessagesReplaced}`,
    ...result.ranges.map((r) => `compaction=${r.id} ${r.from}..${r.to}`),
    ...result.ranges.flatMap((r) => (r.warning ? [`warning[${r.id}]=${r.warning}`] : [])),
    visibleIdsLine(result.visibleIds),
    ...(result.stored ? [] : ['stored=false']),
  ];
}

/** The lines of `uncompact`. */
export function uncompactLines(result: LedgerUncompactResult): string[] {
  return [
    `session_id=${result.sessionId}`,
    `uncompacted=${result.compactionId}`,
    `n_messages_restored=${result.nMessagesRestored}`,
    `reinstated=${result.reinstated.join(',')}`,
    visibleIdsLine(result.visibleIds),
  ];
}
