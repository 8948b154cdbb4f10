import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { numberFlag } from '../cli/number-flag.js';
import { DEFAULT_LAST_CALLS, readTopSnapshot, TOP_MIN_WIDTH, topWidth, renderTop, runLiveTop, TOP_SORT_KEYS, TopReader, type TopSnapshot, type TopSortKey } from '../top/index.js';
import { resolvePaths } from '../util/paths.js';

/** Columns `--once` fits its lines to when stdout is not a terminal and `--width` is not given. */
const PIPE_WIDTH = 200;

export default class Top extends CordonCommand {
  static override summary = 'Watch the agent sessions running on this machine: current call, memory, CPU, last calls';
  static override description = [
    'One row per running agent session (agent, session id, running time, the tree\'s memory and CPU from the',
    'sampler\'s newest sample, the current call\'s peak memory, the current call and how long it has run, the',
    'working directory), then its last calls. Refreshes every second on the alternate screen; keys sort by',
    'CPU (c), memory (m), running time (t), the current call\'s duration (d) or directory (p), in either case; q or',
    'Ctrl-C quits. --once prints one snapshot (also when stdout is not a terminal), --json one as JSON.',
    'Reads only the ends of the files the hook and the sampler write (never a whole file), takes no lock, sends',
    'no signal and writes nothing: the sessions it watches pay nothing. Exit 0.',
  ].join(' ');
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --sort mem', '<%= config.bin %> <%= command.id %> --once', '<%= config.bin %> <%= command.id %> --json'];
  static override flags = {
    sort: Flags.string({ description: 'Sort by: cpu, mem (highest first), time (longest-running session first), call (longest current call first), cwd (A to Z)', options: [...TOP_SORT_KEYS], default: 'cpu' }),
    once: Flags.boolean({ description: 'Print one snapshot and exit (the default when stdout is not a terminal)' }),
    calls: numberFlag({ integer: true, min: 0, max: 50 })({ description: 'Last calls shown under each session (0 to 50)', default: DEFAULT_LAST_CALLS }),
    width: numberFlag({ integer: true, min: TOP_MIN_WIDTH, max: 1000, unit: 'columns' })({ description: `Columns to fit --once's lines to (${TOP_MIN_WIDTH} to 1000; default: the terminal's, else COLUMNS, else 80, at least ${TOP_MIN_WIDTH}; ${PIPE_WIDTH} when not a terminal)` }),
  };

  async run(): Promise<TopSnapshot | void> {
    const { flags } = await this.parse(Top);
    const sort = flags.sort as TopSortKey;
    const dataDir = resolvePaths().dataDir;
    if (this.jsonEnabled()) return readTopSnapshot({ dataDir, sort, lastCalls: flags.calls });
    if (flags.once || !process.stdout.isTTY) {
      const snapshot = readTopSnapshot({ dataDir, sort, lastCalls: flags.calls });
      const width = flags.width ?? (process.stdout.isTTY ? topWidth(process.stdout.columns) : PIPE_WIDTH);
      for (const line of renderTop(snapshot, { width })) this.log(line);
      return;
    }
    process.exitCode = await runLiveTop({ reader: new TopReader({ dataDir, lastCalls: flags.calls }), sort, lastCalls: flags.calls });
  }
}
