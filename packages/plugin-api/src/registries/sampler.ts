/**
 * A per-platform process-tree sampler (uncoalesced/cordon).
 *
 * The host owns everything around a sampler: the once-per-session start (lock + detached
 * spawn), the absolute tick schedule, the stop conditions and the `samples.jsonl` writer. A
 * platform entry only measures one process tree. The Linux entry (`linux-proc`, reading `/proc`)
 * is built into the host; `plugins/sampler-windows` registers the win32 one through
 * `api.samplers` in the same way.
 */
export interface SamplerEntry {
  /** Sampler name, e.g. `linux-proc`, `windows`. */
  readonly name: string;
  /** `process.platform` values this sampler serves. */
  readonly platforms: readonly Platform[];
  /** Loads the implementation lazily; it runs inside the detached sampler process only. */
  readonly load: () => Promise<ProcessTreeSampler>;
}

/** A platform's process-tree measurement. */
export interface ProcessTreeSampler {
  /**
   * Starts watching the tree rooted at `rootPid` and takes a priming reading (CPU % needs a
   * previous one). Throws when `rootPid` does not name a running process.
   */
  open(rootPid: number): TreeReader | Promise<TreeReader>;
  /**
   * Optional: the pid to measure for the pid a hook named, when the platform's hook cannot find
   * the agent itself. On Windows the hook only knows its parent, which is the shell the agent ran
   * the hook command through (`cmd.exe`, PowerShell, Git Bash) and which exits with the hook; the
   * sampler, holding the process table, steps up past shells to the agent. Without it the named
   * pid is measured (Linux: the hook already walked `/proc`).
   */
  agentRoot?(pid: number): number | Promise<number>;
}

/** A handle on one process tree, read once per tick. */
export interface TreeReader {
  /**
   * Measures the tree now: the root, every descendant, minus the sampler process itself.
   * Never throws because a process vanished; that sets {@link TreeReading.partial}.
   */
  read(): TreeReading | Promise<TreeReading>;
  /** Releases whatever the reader holds open (file descriptors, helper processes). */
  close(): void;
}

/** One measurement of a process tree. */
export interface TreeReading {
  /** Sum of resident set sizes over the tree, in bytes (shared pages count once per process). */
  readonly rssBytes: number;
  /**
   * CPU used by the tree since the previous reading, in percent of one core (100 = one core
   * busy for the whole interval; a tree can exceed 100).
   */
  readonly cpuPct: number;
  /** Processes successfully read. */
  readonly nProcs: number;
  /**
   * True when a process of the tree vanished before it could be read: it exited (and was reaped)
   * since the previous reading, so the CPU of its last interval is missing from this one; or when
   * processes could not be looked at for lack of file descriptors (EMFILE/ENFILE under an
   * open-files limit), so some may be missing from the counts.
   */
  readonly partial: boolean;
  /**
   * Processes counted although their parent was already gone when first seen, attributed to the
   * tree by their process group (an orphaned background job); absent when none. Their
   * attribution is less certain than parentage.
   */
  readonly adopted?: number;
  /** False once the root process has exited (or its pid now names another process). */
  readonly rootAlive: boolean;
}

/**
 * A `process.platform` value. Spelled out here so the plugin API's types need no `@types/node`
 * (a plugin type-checked with `skipLibCheck: false` and no Node types still compiles).
 */
export type Platform = 'aix' | 'android' | 'cygwin' | 'darwin' | 'freebsd' | 'haiku' | 'linux' | 'netbsd' | 'openbsd' | 'sunos' | 'win32';
