#!/usr/bin/env node
'use strict';
// The `cordon` executable. CommonJS on purpose: `cordon hook` runs twice per tool call of every
// agent, and an ES module entry costs several ms more to start (`npm run bench:hook`).
//
// `cordon hook …` goes to the hot path before @oclif/core is loaded (DESIGN.md "The hot path");
// `cordon hook --help` and everything else go to oclif.
let argv = process.argv.slice(2);
// `cordon --repo PATH <command> …`: oclif takes argv[0] as the command id, so a leading global
// --repo moves behind the command id (research/cordon-envelope.md §2).
if (argv[0] === '--repo' || argv[0]?.startsWith('--repo=')) {
  const n = argv[0] === '--repo' ? 2 : 1;
  argv = [...argv.slice(n, n + 1), ...argv.slice(0, n), ...argv.slice(n + 1)];
}
// CORDON_HOOK_VIA_OCLIF=1 sends the hook through oclif instead (bench:hook compares the two
// paths); CORDON_NO_FAST_ROUTE=1 sends `check` through oclif.
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h') && !process.env.CORDON_HOOK_VIA_OCLIF) {
  hook(argv.slice(1));
} else if (argv[0] === 'check' && !process.env.CORDON_NO_FAST_ROUTE) {
  check(argv);
} else {
  oclif(argv);
}

function hook(args) {
  // The hook bundle (scripts/bundle-hot.mjs, written by `npm run build`) loads synchronously as
  // one file; the module graph it is built from is the fallback when only `tsc -b` has run.
  let hot;
  try {
    hot = require('../dist/hot/hook.cjs');
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
  // A check passes over each input once, and on a large repository it shares the CPU with the
  // git commands it waits for: V8's optimising compiler (TurboFan, on background threads) would
  // cost about a fifth of the process's CPU time and repay little of it (`npm run bench:envelope`).
  require('node:v8').setFlagsFromString('--no-opt');
  let fast;
  try {
    fast = require('../dist/fast/check.cjs');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('check.cjs')) throw error;
    oclif(args);
    return;
  }
  const options = fast.parseFastCheckArgs(args.slice(1));
  if (!options) {
    oclif(args);
    return;
  }
  fast.fastCheck(options).then((outcome) => {
    if (outcome === 'fallback') oclif(args);
  });
}

function oclif(args) {
  // Linked plugins run their built dist/, as the hook path does: oclif would otherwise register
  // tsx for every linked plugin and run its TypeScript sources, about 180 ms of every command.
  // (Build a plugin you develop with `tsc -b --watch`.)
  globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
  require('@oclif/core').execute({ dir: __dirname, args });
}
