#!/usr/bin/env node
'use strict';
// The `cordon` executable. CommonJS on purpose: `cordon hook` runs twice per tool call of every
// agent, and an ES module entry costs several ms more to start (`npm run bench:hook`).
//
// `cordon hook ...` goes to the hot path before @oclif/core is loaded (docs/ARCHITECTURE.md "The hot paths");
// `cordon hook --help` and everything else go to oclif.
//
// This file stays ASCII: V8 holds a source with any other character as a two-byte string, and
// Node compiles this file from source on every call, scanning twice the bytes
// (test/hot/import-graph.test.ts).
quietClosedPipes();
let argv = process.argv.slice(2);
// `cordon --repo PATH <command> ...`: oclif takes argv[0] as the command id, so a leading global
// --repo moves behind the command id (the BEKO2210/SkillQuarry cordon).
if (argv[0] === '--repo' || argv[0]?.startsWith('--repo=')) {
  const n = argv[0] === '--repo' ? 2 : 1;
  argv = [...argv.slice(n, n + 1), ...argv.slice(0, n), ...argv.slice(n + 1)];
}
// CORDON_HOOK_VIA_OCLIF=1 sends the hook through oclif instead (bench:hook compares the two
// paths); CORDON_NO_FAST_ROUTE=1 sends `check`, `status`, `control run`, `reduce` and `pcodx`
// through oclif.
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h') && !process.env.CORDON_HOOK_VIA_OCLIF) {
  hook(argv.slice(1));
} else if (argv[0] === 'check' && !process.env.CORDON_NO_FAST_ROUTE) {
  check(argv);
} else if (argv[0] === 'status' && !process.env.CORDON_NO_FAST_ROUTE) {
  status(argv);
} else if (argv[0] === 'control' && argv[1] === 'run' && !process.env.CORDON_NO_FAST_ROUTE) {
  controlRun(argv);
} else if (argv[0] === 'reduce' && !process.env.CORDON_NO_FAST_ROUTE) {
  reduce(argv);
} else if (argv[0] === 'pcodx' && !process.env.CORDON_NO_FAST_ROUTE) {
  pluginCommand(argv);
} else {
  oclif(argv);
}

/**
 * A reader that closes its end early (`cordon check --json | head -c 10`) makes the next write
 * fail with EPIPE (ECONNRESET on a socket), emitted as an 'error' event that would crash the process with a stack trace
 * and exit 1. Here, for every command and both output streams, that error ends the output
 * quietly: later writes are dropped and the command finishes with its own exit code. Any other
 * failed write (a full disk: `cordon status --json > /dev/full`) ends the output too, with one
 * line on stderr and exit code 1 unless the command's is already non-zero (outputFailed).
 *
 * The handler is attached when the stream is first used, not here: creating `process.stdout`
 * loads Node's whole stream stack (and `net` when it is a pipe), about 10 ms of CPU that a
 * silent `cordon hook`, which never prints, does not pay (`npm run bench:hook`).
 */
function quietClosedPipes() {
  for (const name of ['stdout', 'stderr']) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    if (!descriptor?.get || !descriptor.configurable) {
      endOutputOnError(process[name], name);
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: descriptor.enumerable,
      get() {
        // Node's own getter creates the stream once and returns it after; it goes back in place.
        Object.defineProperty(process, name, descriptor);
        const stream = descriptor.get.call(process);
        endOutputOnError(stream, name);
        return stream;
      },
    });
  }
}

/** Makes a failed write on `stream` (process.stdout or .stderr, `name`) end its output (see quietClosedPipes). */
function endOutputOnError(stream, name) {
  let ended = false;
  const end = (error) => {
    if (ended) return;
    ended = true;
    stream.write = (_chunk, encoding, callback) => {
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') process.nextTick(done);
      return true;
    };
    // The hook never breaks an agent: whatever its output did, it exits 0.
    // EPIPE, or ECONNRESET from a socket whose reader closed with bytes unread (a Node parent's
    // 'pipe' is a socket pair): the reader has gone, which is not a failure.
    if (error?.code !== 'EPIPE' && error?.code !== 'ECONNRESET' && process.argv[2] !== 'hook') outputFailed(name, error);
  };
  // Every error event is handled here first, then goes to the stream's listeners as usual (the
  // control run relay stops relaying on it), except that a listener rethrowing the error itself
  // is not let end the process: oclif's own (lib/command.js) throws any error but EPIPE, which
  // would end the command with a stack trace.
  const emit = stream.emit;
  stream.emit = function (event, ...args) {
    if (event !== 'error') return emit.call(this, event, ...args);
    end(args[0]);
    for (const listener of this.rawListeners('error')) {
      try {
        Reflect.apply(listener, this, args);
      } catch (thrown) {
        if (thrown !== args[0]) throw thrown;
      }
    }
    return true;
  };
  // A file or a device is written synchronously, and its write(2) error is thrown by write()
  // itself (through console.log too), not emitted.
  const write = stream.write;
  stream.write = function (...args) {
    try {
      return write.apply(this, args);
    } catch (error) {
      if (typeof error?.code !== 'string' || !error.syscall) throw error;
      end(error);
      return true;
    }
  };
}

/**
 * Says that writing `name` (stdout or stderr) failed with `error`, as the plugin API's
 * `outputFailed` does for the fast routes (this file cannot load that ES module before its route
 * is chosen): one line on standard error when standard output failed (once, whichever of the two
 * says it first), and exit code 1 unless the
 * command's is already non-zero.
 */
function outputFailed(name, error) {
  process.once('exit', () => {
    if (!process.exitCode) process.exitCode = 1;
  });
  if (name !== 'stdout') return;
  // Said once per process, with the plugin API's outputFailed (the same registered symbol).
  const said = Symbol.for('cordon.stdout-failure-said');
  if (process[said]) return;
  process[said] = true;
  const words = { ENOSPC: 'no space left on the device', EDQUOT: 'the disk quota is exhausted', EFBIG: 'the file would be too large', EIO: 'input/output error' };
  const code = typeof error?.code === 'string' ? error.code : undefined;
  try {
    require('node:fs').writeSync(2, `cordon: could not write standard output: ${(code && words[code]) || code || 'unknown error'}${code && words[code] ? ` (${code})` : ''}; what was printed is incomplete\n`);
  } catch {
    // Standard error failed too: the exit code is all that is left to say it.
  }
}

function hook(args) {
  shareRequireCached();
  // The hook bundle (scripts/bundle-hot.mjs, written by `npm run build`) loads synchronously as
  // one file; the module graph it is built from is the fallback when only `tsc -b` has run.
  let hot;
  try {
    hot = loadBundle('../dist/hot/hook.cjs');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('hook.cjs')) throw error;
    import('../dist/hot/main.js').then((mod) => mod.runHookProcess(args));
    return;
  }
  hot.runHookProcess(args);
}

// The plain `cordon check [--repo PATH] [--json]` runs without oclif (src/fast/check.ts); any
// other form, and any refusal or error, goes through the oclif command.
function check(args) {
  // A check passes over each input once, and it shares the CPU with the git commands it waits
  // for: V8's optimising compiler (TurboFan, on background threads) would cost about a fifth of
  // the process's CPU time at 100,000 files and repay little of it; at 20 files it compiled
  // SHA-256's block function, a rotate and path.normalize, 15 ms of CPU and 440 page faults for a
  // process of 115 ms (`npm run bench:envelope`). Where Node still lends its `v8` binding through
  // process.binding (Node 20 and 22) saying so costs 0.2 ms and every check runs without it;
  // elsewhere loading `node:v8` (about 3 ms) pays only on a large repository.
  exitWithoutTeardown();
  const binding = v8Binding();
  const noOpt = binding !== undefined || largeIndex(args);
  if (noOpt) {
    // Node's own modules come with code caches made under its default flags, which V8 refuses
    // once a flag changed: node:vm, which loadBundle needs, is loaded first, or it would be
    // compiled from source (about 1 ms, `npm run bench:envelope`).
    require('node:vm');
    (binding ?? require('node:v8')).setFlagsFromString('--no-opt');
  }
  // V8 refuses a code cache made under other flags: the caches of this route under --no-opt are
  // kept apart from the others, or each would replace the other's on every call.
  const prefix = noOpt ? 'no-opt-' : '';
  shareRequireCached(prefix);
  envelopeRoute(args, 'check', prefix);
}

/**
 * Node's internal `v8` binding (`setFlagsFromString`, what `node:v8` calls) when
 * `process.binding` still lends it (Node 20 and 22), else undefined. DEP0111 is kept quiet: this
 * is the file's own way of setting a flag, not something the user runs.
 */
function v8Binding() {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const binding = typeof process.binding === 'function' ? process.binding('v8') : undefined;
    return typeof binding?.setFlagsFromString === 'function' ? binding : undefined;
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}

/**
 * Whether the repository `cordon check` is about to audit has an index of 4 MiB or more (about
 * 40,000 entries): the first `.git` found from `--repo` (else the current directory) upwards,
 * when it is a directory. A guess that only chooses V8's flags: anything unusual (a linked work
 * tree's `.git` file, no repository, an unreadable path) answers false.
 */
function largeIndex(args) {
  // Declared here: the top of this file runs before a module-level constant would be set.
  const NO_OPT_INDEX_BYTES = 4 * 1024 * 1024;
  const fs = require('node:fs');
  const path = require('node:path');
  const at = args.indexOf('--repo');
  const given = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('--repo='))?.slice('--repo='.length);
  try {
    let dir = path.resolve(given || '.');
    for (let depth = 0; depth < 64; depth++) {
      const dotGit = fs.statSync(path.join(dir, '.git'), { throwIfNoEntry: false });
      if (dotGit) {
        if (!dotGit.isDirectory()) return false;
        const index = fs.statSync(path.join(dir, '.git', 'index'), { throwIfNoEntry: false });
        return index !== undefined && index.size >= NO_OPT_INDEX_BYTES;
      }
      const parent = path.dirname(dir);
      if (parent === dir) return false;
      dir = parent;
    }
  } catch {
    // ENOTDIR, EACCES, ...: the check itself reports what is wrong with the path.
  }
  return false;
}

// The plain `cordon status [--repo PATH] [--json]` runs without oclif (src/fast/status.ts); any
// other form, and any refusal, goes through the oclif command.
function status(args) {
  exitWithoutTeardown();
  envelopeRoute(args, 'status');
}

/**
 * Runs the envelope command `name` (`check`, `status`) on its fast route: its bundle
 * `dist/fast/<name>.cjs` (caches named with `prefix`), whose `parseFast<Name>Args` takes the
 * arguments after the command and whose `fast<Name>` runs it. oclif runs the command instead when
 * the bundle is not built (only `tsc -b` ran), the form is not the plain one, or the route
 * resolves 'fallback' (a refusal, printed by the oclif command).
 */
function envelopeRoute(args, name, prefix = '') {
  const file = `${name}.cjs`;
  let fast;
  try {
    fast = loadBundle(`../dist/fast/${file}`, prefix);
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes(file)) throw error;
    oclif(args);
    return;
  }
  const title = name[0].toUpperCase() + name.slice(1);
  const options = fast[`parseFast${title}Args`](args.slice(1));
  if (!options) {
    oclif(args);
    return;
  }
  fast[`fast${title}`](options).then((outcome) => {
    if (outcome === 'fallback') oclif(args);
    else exitIfIdle();
  });
}

// The plain `cordon control run [--hint H] [--json] [--verbose] -- CMD ...` runs without oclif
// (src/control/fast.ts); any other form (help, a bad hint, no `--`) goes through the oclif command.
function controlRun(args) {
  exitWithoutTeardown();
  shareRequireCached();
  let fast;
  try {
    fast = loadBundle('../dist/control/fast.cjs');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('fast.cjs')) throw error;
    oclif(args);
    return;
  }
  const options = fast.parseFastControlRunArgs(args.slice(2));
  if (!options) oclif(args);
  else
    fast.fastControlRun(options).then((outcome) => {
      if (outcome === 'fallback') oclif(args);
      else exitIfIdle();
    });
}

// The plain `cordon reduce [--session ID|--all] [--json|--jsonl] [--db PATH|URL]` runs without
// oclif (src/fast/reduce.ts); any other form, and any error, goes through the oclif command.
function reduce(args) {
  exitWithoutTeardown();
  let fast;
  try {
    fast = loadBundle('../dist/fast/reduce.cjs');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('reduce.cjs')) throw error;
    oclif(args);
    return;
  }
  const options = fast.parseFastReduceArgs(args.slice(1));
  if (!options) {
    oclif(args);
    return;
  }
  fast.fastReduce(options).then((outcome) => {
    if (outcome === 'fallback') oclif(args);
  });
}

// `cordon pcodx show|ids|turn ...`: the codex plugin runs them without oclif and the plugin host
// when it declares them (src/fast/plugin-command.ts); every other pcodx command, any form the
// plugin does not take, and a plugin that is not installed go through oclif.
function pluginCommand(args) {
  exitWithoutTeardown();
  // For the plugin's fast command module: see requireCached.
  globalThis[Symbol.for('cordon.requireCached')] = requireCached;
  let fast;
  try {
    fast = loadBundle('../dist/fast/plugin-command.cjs');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('plugin-command.cjs')) throw error;
    oclif(args);
    return;
  }
  fast.fastPluginCommand(args).then((outcome) => {
    if (outcome === 'fallback') oclif(args);
  });
}

/**
 * Ends the process with `process.exitCode` once its event loop has nothing left to do, through
 * `process.exit()` instead of Node's own ending. The work is the same up to that point (every
 * write, child and timer has finished: 'beforeExit' comes only then), and 'exit' listeners still
 * run; what is skipped is the teardown that frees V8's heap page by page and disposes the
 * isolate, memory the kernel takes back at exit anyway: 2.5 ms of wall time and 40 page faults
 * of a small `cordon check` (`npm run bench:envelope`). See {@link exitIfIdle} for when it holds
 * back.
 */
function exitWithoutTeardown() {
  process.once('beforeExit', exitIfIdle);
}

/**
 * Ends the process now with `process.exitCode` when nothing is left in its event loop (no
 * handle, request, timer or immediate: `process.getActiveResourcesInfo()`) and no one else
 * listens for 'beforeExit' (a plugin that flushes what it exports then hears the event from
 * Node's own ending, as before); else does nothing. Called when a fast route has written its
 * last byte, it also spares the loop's last turns, in which Node waits for V8's background tasks
 * (`platform->DrainTasks`): another 2.5 ms and 80 page faults of a small check.
 */
function exitIfIdle() {
  if (process.listeners('beforeExit').some((listener) => listener !== exitIfIdle)) return;
  if (process.getActiveResourcesInfo().length === 0) process.exit();
}

/**
 * Hands {@link requireCached} to the fast route's bundle (src/plugins/discover.ts reads it from
 * `globalThis[Symbol.for('cordon.requireCached')]`): the plugins a route loads (the dialect for
 * the hook, the `enforce` backend for `control run`, `audit` taps for `check`) then compile their
 * register bundles from a code cache instead of from source (about 1.5 ms for cgroup-linux's;
 * `npm run bench:control`). `prefix` starts the names of the route's cache files (a route that
 * runs under other V8 flags needs caches of its own).
 */
function shareRequireCached(prefix = '') {
  const path = require('node:path');
  globalThis[Symbol.for('cordon.requireCached')] = (file, cacheName) => requireCached(file, prefix + (cacheName ?? path.basename(file)));
}

/**
 * `require(relPath)` for one of the CommonJS bundles of dist/, compiled through a V8 code cache
 * kept in Cordon's cache directory: compiling the fast check's bundle, and the functions it
 * compiles lazily, costs more than reading the cache (`npm run bench:envelope`). Node >= 22.1 has
 * `module.enableCompileCache()` for this; Node 20 does not, so the bundle runs as `vm.Script`
 * with `cachedData`, and its `import()`s go to Node's own loader.
 *
 * The cache file is named after the bundle's size, mtime and inode and Node's version and
 * architecture (V8 itself also refuses a cache from another V8 or other flags); a missing or
 * refused cache is written when the process exits, replacing older ones of the same bundle.
 * A run that sets `globalThis.__cordonCodeCachePartial` (the hook, when its plugin work ran on a
 * worker thread: the main thread then compiled only part of what an ordinary run needs) writes
 * its cache as `<name>-partial.bin` and only when there is none; the next ordinary run that
 * loads a partial cache writes the full one, which replaces it.
 * `prefix` starts the cache files' names (a route that runs under other V8 flags needs caches
 * of its own). `CORDON_CODE_CACHE=off` loads with plain `require`. Throws what `require` would.
 */
function loadBundle(relPath, prefix = '') {
  const path = require('node:path');
  return requireCached(path.join(__dirname, relPath), prefix + path.basename(relPath));
}

/**
 * {@link loadBundle} for any CommonJS file by absolute path: the hook bundle loads the dialect
 * plugin's register bundle through it (`globalThis[Symbol.for('cordon.requireCached')]`, set
 * below), so that bundle too is compiled from a code cache instead of from source on every tool
 * call. `cacheName` names the cache files (default: the file's base name); files that share a
 * base name (every plugin's `register.cjs`) need distinct names, since a new cache replaces the
 * older caches of the same name.
 */
function requireCached(file, cacheName) {
  const fs = require('node:fs');
  const path = require('node:path');
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    stat = undefined;
  }
  const cache = cacheDir();
  if (!stat || cache === undefined || process.env.CORDON_CODE_CACHE === 'off') return require(file);
  const vm = require('node:vm');
  // The CommonJS loader's own class: the same object `require('node:module')` returns, without
  // loading that public module and the ES module loader parts it pulls in (0.6 ms per hook).
  const Module = module.constructor;
  quietDefaultLoaderWarning();
  const name = cacheName ?? path.basename(file);
  const dir = path.join(cache, 'code-cache');
  const cacheFile = path.join(dir, `${name}-${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}-${process.version}-${process.arch}.bin`);
  const partialFile = cacheFile.replace(/\.bin$/, '-partial.bin');
  let cachedData;
  let fromPartial = false;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    try {
      cachedData = fs.readFileSync(partialFile);
      fromPartial = true;
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(readWrapped(fs, file, stat.size, Module), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected || fromPartial) {
    // After the run, so the cache also holds the functions the run compiled.
    atExit(() => {
      const partial = globalThis.__cordonCodeCachePartial === true;
      // A partial run never replaces a cache it could use; an ordinary one replaces a partial cache.
      if (partial && cachedData && !script.cachedDataRejected) return;
      const target = partial ? partialFile : cacheFile;
      let temp;
      try {
        // Owner-only like everything else cordon writes (docs/telemetry.md), whatever the umask.
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        pruneCaches(fs, path, dir, name, path.basename(target));
        temp = `${target}.${process.pid}.tmp`;
        // Opened before the cache is serialised: an unwritable directory costs no serialising.
        const fd = fs.openSync(temp, 'w', 0o600);
        try {
          fs.writeFileSync(fd, script.createCachedData());
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temp, target);
        temp = undefined;
      } catch {
        // A cache that cannot be written only costs the next run its compile time.
        try {
          if (temp) fs.rmSync(temp, { force: true });
        } catch {
          // Nothing more to do at exit.
        }
      }
    });
  }
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/**
 * Runs `work` when the process exits, after the work added before it. One 'exit' listener serves
 * every call: a command that compiled a dozen plugins' bundles without their caches (the first
 * run after an install or an upgrade) would otherwise add one listener per bundle, and past ten
 * Node prints a MaxListenersExceededWarning, on the hook's stderr too. (The list lives on the
 * function: this file's top level calls it before a `const` below the calls would exist.)
 */
function atExit(work) {
  if (!atExit.work) {
    atExit.work = [];
    process.once('exit', () => atExit.work.forEach((run) => run()));
  }
  atExit.work.push(work);
}

/**
 * Removes the caches of bundle `name` that the cache `keep` replaces: those of older builds made
 * by this Node version and architecture. Caches another Node version made stay, so that a
 * user who alternates two versions (an nvm default and a project's pinned one) does not compile
 * the bundle from source on every switch; they go once 30 days old (mtime: a cache is written
 * once and only read after). Another process's temp file is left alone.
 */
function pruneCaches(fs, path, dir, name, keep) {
  const keepForeignMs = 30 * 24 * 3600 * 1000;
  const runtime = `-${process.version}-${process.arch}`;
  const now = Date.now();
  for (const old of fs.readdirSync(dir)) {
    if (!old.startsWith(`${name}-`) || !old.endsWith('.bin') || old === keep) continue;
    const file = path.join(dir, old);
    try {
      const ours = old.endsWith(`${runtime}.bin`) || old.endsWith(`${runtime}-partial.bin`);
      if (ours || now - fs.statSync(file).mtimeMs > keepForeignMs) fs.rmSync(file, { force: true });
    } catch {
      // Gone already, or another process's: the next write looks again.
    }
  }
}

/**
 * The text of `file` inside the CommonJS wrapper (`Module.wrap`), read into one buffer that
 * already holds the wrapper and decoded once. `Module.wrap(text)` would join two strings, and
 * V8 flattens that join into a third copy before it compiles: for the check bundle 230 KB more in
 * the young generation, which set off a scavenge, and 85 more page faults (`npm run
 * bench:envelope`). `size` is the file's size from its stat; a file that changed size since is
 * read again the plain way.
 */
function readWrapped(fs, file, size, Module) {
  const [head, tail] = Module.wrapper;
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(head) + size + Buffer.byteLength(tail));
  let at = buffer.write(head, 0);
  const fd = fs.openSync(file, 'r');
  let read = 0;
  try {
    for (let n = -1; n !== 0 && read < size; read += n) n = fs.readSync(fd, buffer, at + read, size - read, read);
    // One byte more means the file grew since its stat.
    if (read === size && fs.readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0) read = -1;
  } finally {
    fs.closeSync(fd);
  }
  if (read !== size) return Module.wrap(fs.readFileSync(file, 'utf8'));
  at += size;
  buffer.write(tail, at);
  return buffer.toString('utf8');
}

/**
 * Node 20 flags `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` experimental and warns the first
 * time a bundle's `import()` uses it (a plugin module, the ledger). The warning is about this
 * file's own way of loading, not about anything the user runs, and the hook must not print: it
 * is dropped. Every other warning is emitted as before.
 */
function quietDefaultLoaderWarning() {
  if (quietDefaultLoaderWarning.done) return;
  quietDefaultLoaderWarning.done = true;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return emitWarning.call(process, warning, ...rest);
  };
}

/**
 * Cordon's cache directory, resolved as src/util/paths.ts resolves it (`resolvePaths().cacheDir`:
 * a relative XDG_CACHE_HOME is ignored), or undefined when CORDON_CACHE_DIR is relative, which
 * that refuses: no code cache is read or written then (the hook stays silent; commands refuse).
 */
function cacheDir() {
  const env = process.env;
  const path = require('node:path');
  if (env.CORDON_CACHE_DIR) return path.isAbsolute(env.CORDON_CACHE_DIR) ? env.CORDON_CACHE_DIR : undefined;
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'cordon');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'cordon');
  return path.join(env.HOME || env.USERPROFILE || require('node:os').homedir(), '.cache', 'cordon');
}

function oclif(args) {
  // Linked plugins run their built dist/, as the hook path does: oclif would otherwise register
  // tsx for every linked plugin and run its TypeScript sources, about 180 ms of every command.
  // (Build a plugin you develop with `tsc -b --watch`.)
  globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
  // Cordon's directories are checked before oclif's plugin loading reads them
  // (src/cli/environment.ts): a bad CORDON_DATA_DIR is one clear error, not Node's raw warning.
  import('../dist/cli/environment.js').then((environment) => {
    const ready = environment.prepareOclif(args);
    // A damaged <data>/package.json that doctor or control run goes on without: oclif skips it.
    if (ready === 'without-user-plugins') oclifCore().execute({ loadOptions: { root: __dirname, userPlugins: false }, args });
    else if (ready) oclifCore().execute({ dir: __dirname, args });
  });
}

/**
 * @oclif/core for the oclif route: its bundle `dist/oclif/core-<version>.cjs` (scripts/
 * bundle-hot.mjs) through the code cache when the installed @oclif/core is that version, else
 * the package itself. The bundle is put in `require.cache` under the package's own entry file, so
 * every `import`/`require` of '@oclif/core' in this process (cordon's commands, oclif's plugins)
 * gets this one copy: one `Config`, one `Errors.CLIError`, one set of oclif settings. Without the
 * bundle a command loads 160 modules one by one first (`npm run bench:envelope`, the `cordon
 * --version` row).
 */
function oclifCore() {
  const path = require('node:path');
  const fs = require('node:fs');
  let entry;
  let bundle;
  try {
    entry = require.resolve('@oclif/core');
    const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'));
    bundle = path.join(__dirname, '..', 'dist', 'oclif', `core-${version}.cjs`);
    if (typeof version !== 'string' || !fs.existsSync(bundle)) return require('@oclif/core');
  } catch {
    return require('@oclif/core');
  }
  // The bundle's import() calls come here (scripts/bundle-hot.mjs importThroughHost).
  globalThis[Symbol.for('cordon.import')] = (specifier) => import(specifier);
  const core = requireCached(bundle);
  const Module = module.constructor;
  const cached = new Module(entry, module);
  cached.filename = entry;
  cached.paths = Module._nodeModulePaths(path.dirname(entry));
  cached.exports = core;
  cached.loaded = true;
  require.cache[entry] = cached;
  return core;
}
