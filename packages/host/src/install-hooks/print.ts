import type { InstallHooksReport } from './run.js';

/**
 * Human output of install-hooks / uninstall-hooks: per agent, each file's summary and diff, then
 * notes; then each agent `--all` left out (`skipped codex: not found here (…)`); then `notes` about the whole run (`note: …`); then every warning (`warning: <agent>: …`)
 * last, where it is seen.
 */
export function printHooksReport(report: InstallHooksReport, line: (text: string) => void, notes: readonly string[] = []): void {
  // --all found nothing: say what it looks for, and how to configure an agent it did not find.
  if (report.agents.length === 0) {
    line(
      report.mode === 'install'
        ? 'no agent found to configure: none of the agents cordon takes hooks from (`cordon info` lists them) has its command on PATH or its config directory here; name one with --agent NAME to configure it anyway'
        : 'no agent found to clean up: no agent cordon takes hooks from has its config here; name one with --agent NAME to look anyway',
    );
  }
  for (const agent of report.agents) {
    line(`== ${agent.agent} (${report.scope})`);
    if (agent.skipped !== undefined) {
      line(`skipped: ${agent.skipped}`);
      for (const note of agent.notes) line(`note: ${note}`);
      continue;
    }
    if (agent.changes.length === 0) line(report.mode === 'install' ? 'already installed: nothing to change' : 'nothing of cordon found: nothing to change');
    for (const change of agent.changes) {
      // A file the plan removes is said to be deleted, not written.
      const verb = change.deleted ? (report.write ? 'deleted' : 'would delete') : report.write ? 'wrote' : 'would write';
      line(`${verb} ${change.path}: ${change.summary}`);
      line(change.diff.trimEnd());
    }
    for (const note of agent.notes) line(`note: ${note}`);
  }
  // --all: each agent it left out, one line each (under --json: `passed_over`).
  for (const skipped of report.passed_over ?? []) line(`skipped ${skipped.agent}: ${skipped.reason}`);
  for (const note of notes) line(`note: ${note}`);
  if (!report.write && report.agents.some((a) => a.changes.length > 0)) line('dry run: nothing was written; pass --write to apply');
  for (const agent of report.agents) {
    for (const warning of agent.warnings) line(`warning: ${agent.agent}: ${warning}`);
  }
}

/** The warnings of a report as lines (`--json` prints them on stderr, so a script sees them too). */
export function hooksWarnings(report: InstallHooksReport): string[] {
  return report.agents.flatMap((a) => a.warnings.map((w) => `warning: ${a.agent}: ${w}`));
}
