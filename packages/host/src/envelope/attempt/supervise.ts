import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { runManaged, signalGroup, type ManagedChild } from '../process.js';
import type { InterruptTrap } from './signals.js';
import { SCAN_INTERVAL_MS, type ProcessTree } from './tree.js';

/**
 * TERM → KILL grace when an attempt is ended, ms. Longer than the 0.4 s of the BEKO2210/SkillQuarry cordon because an
 * agent given SIGTERM ends its own tool processes first (Claude Code does, in well under a second);
 * whatever is left after the grace gets SIGKILL.
 */
export const AGENT_KILL_GRACE_MS = 2000;
/** How long killed processes get to disappear after SIGKILL, ms. */
const KILL_SETTLE_MS = 1000;

/** What to run and within which limits. */
export interface SuperviseOptions {
  /** Executable and arguments. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Full environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Prompt text for stdin, or undefined for /dev/null. */
  readonly stdin?: string;
  /** Wall-clock limit, ms. */
  readonly timeoutMs: number;
  /** Bytes per output stream; more is an overflow that ends the attempt. */
  readonly outputCap: number;
  /** Descendants of cordon, scanned while the agent runs. */
  readonly tree: ProcessTree;
  /** Ends the attempt when cordon is signalled. */
  readonly trap: InterruptTrap;
  /** Called with the agent's pid once it runs. */
  readonly onSpawn?: (pid: number) => void;
  /** Receives each chunk of the agent's stderr as it arrives. */
  readonly onStderr?: (chunk: Buffer) => void;
}

/** How the agent process ended, as cordon saw it. */
export interface AgentExit {
  /** False when no process ran: it could not start, or cordon was signalled before it did. */
  readonly started: boolean;
  /** Why the executable could not start (`cannot start 'x': ENOENT …`); the other fields are then empty. */
  readonly startError: string | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly outputLimited: boolean;
  /** Ended because cordon was signalled. */
  readonly interrupted: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Spawn to exit, ms. */
  readonly wallMs: number;
  /** Processes of the attempt still alive after the agent ended (then killed). */
  readonly leftovers: number;
}

/**
 * Runs the agent as a managed child (envelope/process.ts: argv, no shell, its own process group,
 * output counted per stream) and supervises it: the timeout, and an interrupt from `trap`, end
 * the whole attempt tree with {@link endTree}; after the agent exits, any process of its tree
 * still alive (a background job, a tool left behind) is ended the same way and counted. A
 * binary that cannot start resolves with `startError` instead of throwing, so the caller records
 * an engine error; other failures reject.
 */
export async function superviseAgent(options: SuperviseOptions): Promise<AgentExit> {
  const { tree, trap } = options;
  let child: ManagedChild | undefined;
  let timedOut = false;
  let interrupted = false;
  let ending: Promise<number> | undefined;
  const end = () => (ending ??= endTree(tree, child));
  const scanner = setInterval(() => tree.scan(), SCAN_INTERVAL_MS);
  const timer = setTimeout(() => {
    timedOut = true;
    void end();
  }, options.timeoutMs);
  trap.onInterrupt(() => {
    interrupted = true;
    void end();
  });
  const nothingRan = (startError: string | null): AgentExit => ({ started: false, startError, exitCode: null, signal: null, timedOut: false, outputLimited: false, interrupted, stdout: '', stderr: '', wallMs: 0, leftovers: 0 });
  try {
    if (interrupted) return nothingRan(null);
    let result;
    try {
      result = await runManaged(options.argv, {
        cwd: options.cwd,
        env: options.env,
        input: options.stdin,
        outputCap: options.outputCap,
        keepBytes: options.outputCap,
        onStderr: options.onStderr,
        onSpawn: (spawned) => {
          child = spawned;
          tree.scan();
          options.onSpawn?.(spawned.pid!);
          if (interrupted || timedOut) void end();
        },
      });
    } catch (error) {
      if (error instanceof CordonError && error.code === ERROR_CODES.PROCESS_ERROR) {
        return nothingRan(error.message);
      }
      throw error;
    }
    clearTimeout(timer);
    let leftovers = 0;
    if (ending) await ending;
    else {
      tree.scan();
      leftovers = tree.alive().length;
      if (leftovers > 0) await end();
    }
    return {
      started: true,
      startError: null,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut,
      outputLimited: result.outputLimited,
      interrupted,
      stdout: result.stdout.toString('utf8'),
      stderr: result.stderr.toString('utf8'),
      wallMs: Math.round(result.durationMs),
      leftovers,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(scanner);
  }
}

/**
 * Ends every process of an attempt: SIGTERM to the agent's group and to every tracked member and
 * its group, up to {@link AGENT_KILL_GRACE_MS} for them to go, then SIGKILL to whatever remains
 * (rescanned first, so children started during the grace are caught), and up to 1 s for them to
 * disappear. Resolves with how many processes were alive at the start. Never throws.
 */
export async function endTree(tree: ProcessTree, child?: ManagedChild, graceMs = AGENT_KILL_GRACE_MS): Promise<number> {
  tree.scan();
  const count = tree.alive().length;
  const agentAlive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const quietSignal = (signal: NodeJS.Signals) => {
    try {
      if (child) signalGroup(child, signal);
    } catch {
      // EPERM on a group that is not ours any more: nothing to end.
    }
    tree.signalAll(signal);
  };
  quietSignal('SIGTERM');
  const gone = () => !agentAlive() && (tree.scan(), tree.alive().length === 0);
  if (!(await waitFor(gone, graceMs))) {
    tree.scan();
    quietSignal('SIGKILL');
    await waitFor(gone, KILL_SETTLE_MS);
  } else if (child && !tree.supported) {
    // Without /proc the group's other members are out of view: KILL the group in case one ignored TERM.
    quietSignal('SIGKILL');
  }
  tree.clear();
  return count;
}

async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (done()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return done();
}
