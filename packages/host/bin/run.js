#!/usr/bin/env node
// `cordon hook …` runs on every tool call of every agent: route it to the hot path before
// @oclif/core is imported (DESIGN.md "The hot path"). `cordon hook --help` still goes to oclif.
const argv = process.argv.slice(2);
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
  const { runHookProcess } = await import('../dist/hot/main.js');
  await runHookProcess(argv.slice(1));
} else {
  // Linked workspace plugins are built before they are linked; oclif's warning is noise here.
  process.env.OCLIF_DISABLE_LINKED_ESM_WARNING ??= '1';
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
