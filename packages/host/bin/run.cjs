#!/usr/bin/env node
'use strict';
// The `cordon` executable. CommonJS on purpose: `cordon hook` runs twice per tool call of every
// agent, and an ES module entry costs several ms more to start (`npm run bench:hook`).
//
// `cordon hook …` goes to the hot path before @oclif/core is loaded (DESIGN.md "The hot path");
// `cordon hook --help` and everything else go to oclif.
const argv = process.argv.slice(2);
// CORDON_HOOK_VIA_OCLIF=1 sends it through oclif instead (bench:hook compares the two paths).
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h') && !process.env.CORDON_HOOK_VIA_OCLIF) {
  hook(argv.slice(1));
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

function oclif(args) {
  // Linked workspace plugins are built before they are linked; oclif's warning is noise here.
  process.env.OCLIF_DISABLE_LINKED_ESM_WARNING ??= '1';
  // `cordon --repo PATH <command> …`: oclif takes argv[0] as the command id, so a leading
  // global --repo moves behind the command id (research/cordon-envelope.md §2).
  if (args[0] === '--repo' || args[0]?.startsWith('--repo=')) {
    const n = args[0] === '--repo' ? 2 : 1;
    args = [...args.slice(n, n + 1), ...args.slice(0, n), ...args.slice(n + 1)];
  }
  require('@oclif/core').execute({ dir: __dirname, args });
}
