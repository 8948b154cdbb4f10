#!/usr/bin/env node
// `cordon hook …` runs on every tool call of every agent: route it to the hot path before
// @oclif/core is imported (DESIGN.md "The hot path"). `cordon hook --help` still goes to oclif.
const argv = process.argv.slice(2);
// CORDON_HOOK_VIA_OCLIF=1 sends it through oclif instead (bench:hook compares the two paths).
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h') && !process.env.CORDON_HOOK_VIA_OCLIF) {
  const { runHookProcess } = await import('../dist/hot/main.js');
  await runHookProcess(argv.slice(1));
} else {
  // Linked workspace plugins are built before they are linked; oclif's warning is noise here.
  process.env.OCLIF_DISABLE_LINKED_ESM_WARNING ??= '1';
  // `cordon --repo PATH <command> …`: oclif takes argv[0] as the command id, so a leading
  // global --repo moves behind the command id (research/cordon-envelope.md §2).
  let args = argv;
  if (args[0] === '--repo' || args[0]?.startsWith('--repo=')) {
    const n = args[0] === '--repo' ? 2 : 1;
    args = [...args.slice(n, n + 1), ...args.slice(0, n), ...args.slice(n + 1)];
  }
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url, args });
}
