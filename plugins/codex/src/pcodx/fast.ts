import { directoryProblem, type FastCommandApi, type RunFastCommand } from '@cordon/plugin-api';
import { commandOutput } from './command-output.js';
import { splitLeadingFlags } from './leading-flags.js';
import type { Sink } from './output.js';
import { runIds, runShow, runTurn, type ReadFlags } from './read-commands.js';

/**
 * The fast route of `cordon pcodx show`, `ids` and `turn` (package.json `cordon.fastCommands`;
 * the host calls {@link runFastCommand} before oclif is loaded, see its `src/fast/plugin-command.ts`):
 * the flags are parsed here, then the same bodies as the oclif commands run (`read-commands.ts`)
 * with the same output and errors (`command-output.ts`). A `turn` prints the whole render on every
 * prompt, so oclif's start-up and the plugin host would otherwise be paid on every turn.
 */

/** A command of this route: the flags it takes (besides `--db`, `--session`, `--cwd`, `--json`) and its body. */
interface FastCommand {
  readonly booleans: readonly string[];
  readonly strings: readonly string[];
  /** `flags` as {@link parseFastArgs} returns them: each value of the type its list says. */
  run(api: () => Promise<FastCommandApi>, flags: ReadFlags & Record<string, string | boolean | undefined>, sink: Sink): Promise<void>;
}

const COMMON_STRINGS = ['db', 'session', 'cwd'] as const;

const COMMANDS: Readonly<Record<string, FastCommand>> = {
  'pcodx:show': { booleans: ['json', 'roles'], strings: COMMON_STRINGS, run: (api, flags, sink) => runShow(api, flags, sink) },
  'pcodx:ids': { booleans: ['json'], strings: COMMON_STRINGS, run: (api, flags, sink) => runIds(api, flags, sink) },
  'pcodx:turn': { booleans: ['json'], strings: [...COMMON_STRINGS, 'text', 'text-file'], run: (api, flags, sink) => runTurn(api, flags, sink) },
};

/**
 * The flags of `args` for command `id`, or undefined (oclif then parses and reports) for any
 * other form: help, an unknown flag or argument, a flag given twice, a value missing, empty or
 * starting with `-` (but `-` itself), `--`, a `--cwd` that names no directory. `--name VALUE` and
 * `--name=VALUE` are both taken, as oclif takes them.
 */
export function parseFastArgs(id: string, args: readonly string[]): Record<string, string | boolean> | undefined {
  const command = COMMANDS[id];
  if (!command) return undefined;
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--') || arg === '--') return undefined;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (Object.hasOwn(flags, name)) return undefined;
    if (command.booleans.includes(name) && eq === -1) {
      flags[name] = true;
      continue;
    }
    if (!command.strings.includes(name)) return undefined;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    // `-` alone is a value (`--text-file -`: stdin); any other leading `-` may be a flag: oclif's to judge.
    if (value === undefined || value === '' || (value.startsWith('-') && value !== '-')) return undefined;
    flags[name] = value;
  }
  // `--cwd` must name a directory (command.ts cwdFlag): oclif refuses one that does not. The
  // plugin API's check, inlined in this bundle (scripts/bundle-register.mjs), is the one the host
  // lends the oclif command.
  if (typeof flags.cwd === 'string' && directoryProblem(flags.cwd) !== undefined) return undefined;
  return flags;
}

/**
 * The command a fast run names: `pcodx:show` and its arguments as given, or for `pcodx` itself
 * (the topic, declared too) the reference's spelling with global flags first, `pcodx --db D show`,
 * read as the topic command reads it (`leading-flags.ts`). Undefined for anything else.
 */
function commandOf(id: string, args: readonly string[]): { id: string; args: readonly string[] } | undefined {
  if (id !== 'pcodx') return { id, args };
  const split = splitLeadingFlags(args);
  return split.kind === 'run' ? { id: `pcodx:${split.command}`, args: split.argv } : undefined;
}

/**
 * Runs `pcodx show|ids|turn` from the fast route (see `RunFastCommand` of the plugin api).
 * A failure the user can act on is printed as the oclif route prints it (`error: …`, exit 1, or 2 for a usage error);
 * any other failure hands the command to oclif, which reports it, unless the action had already
 * reported something (printed it, or collected it under `--json`): running it again would repeat
 * that, and a `turn` reports only after its prompt is recorded.
 */
export const runFastCommand: RunFastCommand = async (topicOrCommand, given, api) => {
  const command = commandOf(topicOrCommand, given);
  if (!command) return 'fallback';
  const { id, args } = command;
  const flags = parseFastArgs(id, args);
  if (!flags) return 'fallback';
  const terminal = api.services.terminal;
  const output = commandOutput(flags.json === true, terminal ? (text) => terminal.lines(text) : undefined);
  let reported = false;
  const sink: Sink = {
    out: (line) => ((reported = true), output.sink.out(line)),
    err: (line) => ((reported = true), output.sink.err(line)),
    ...(output.sink.text ? { text: (block: string) => ((reported = true), output.sink.text!(block)) } : {}),
    ...(output.sink.write ? { write: (text: string) => ((reported = true), output.sink.write!(text)) } : {}),
    ...(output.sink.listed ? { listed: () => output.sink.listed!() } : {}),
  };
  try {
    await COMMANDS[id]!.run(async () => api, flags as ReadFlags & Record<string, string | boolean>, sink);
  } catch (error) {
    if (output.fail(error)) return 'done';
    if (!reported) return 'fallback';
    throw error;
  }
  await output.finish();
  return 'done';
};
