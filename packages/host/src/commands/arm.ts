import { displayPath } from '../envelope/path-text.js';
import { Args } from '@oclif/core';
import { unstartableVerifiers } from '../envelope/verify/reachable.js';
import { shellOperatorVerifiers, shellOperatorWarning } from '../envelope/verify/shell-operators.js';
import { subdirectoryGlobs, subdirectoryGlobWarning } from '../envelope/policy/subdirectory-globs.js';
import { policyGlobWarnings } from '../envelope/policy/glob-warnings.js';
import { CordonCommand } from '../cli/cordon-command.js';
import { attemptsFlag, liveFlag, policyFlags, repoFlag, settingsFromFlags } from '../cli/envelope-flags.js';
import { arm } from '../envelope/arm.js';
import { discoverRepoOf } from '../envelope/git/repo.js';
import { liveCoverage, liveCoverageText } from '../envelope/live/coverage.js';
import { terminalText } from '../output/terminal.js';
import { readPolicyFile, resolveSettings } from '../envelope/settings.js';

/** What `cordon arm --json` prints. */
export interface ArmReport {
  phase: 'armed';
  mode: string;
  baseline: string;
  root: string;
  /** Whether the live envelope is on (`--live` or `"live": true`). */
  live: boolean;
  /** With `live`: the agents whose installed hooks refuse a write outside the policy, those whose hooks cannot, and those whose hooks could but are not installed (or not current) here. */
  live_agents?: { refusing: readonly string[]; not_refusing: readonly string[]; not_hooked: readonly string[] };
}

export default class Arm extends CordonCommand {
  static override summary = 'Arm a change envelope at HEAD: a path policy, budgets and verifiers that `cordon check` enforces';
  static override description =
    'The work tree must be clean (ignored files are fine). Settings come from the flags, then .cordon.json at the repository root, then the defaults. Exit 0 armed, 2 refused.';
  static override examples = [
    `<%= config.bin %> <%= command.id %> "fix the parser" --allow 'src/**' --deny 'src/secrets/**' --verify 'npm test'`,
    `<%= config.bin %> <%= command.id %> "docs only" --allow 'docs/**' --max-files 5 --json`,
  ];
  static override args = { label: Args.string({ required: true, description: 'What the change is for (trimmed; at most 16384 characters)' }) };
  static override flags = { ...repoFlag, ...policyFlags(), ...attemptsFlag, ...liveFlag };

  async run(): Promise<ArmReport> {
    const { args, flags } = await this.parse(Arm);
    const loc = await discoverRepoOf(flags.repo);
    const settings = resolveSettings(readPolicyFile(loc.root), settingsFromFlags(flags));
    const envelope = await arm({ label: args.label, settings }, { repo: loc.root });
    const { config } = envelope;
    const deny = config.policy.deny.length ? `, deny ${config.policy.deny.map(displayPath).join(' ')}` : '';
    this.log(`armed: allow ${config.policy.allow.map(displayPath).join(' ')}${deny} at ${config.baseline.slice(0, 12)} (${config.verify.commands.length} verifier${config.verify.commands.length === 1 ? '' : 's'}); run \`cordon check\` when the change is done`);
    // Armed all the same: the program may yet appear (a dependency installed later).
    for (const v of unstartableVerifiers(config.verify.commands, config.repo.root)) {
      process.stderr.write(`warning: verifier \`${terminalText(v.command)}\` cannot start here now (\`${terminalText(v.program)}\`: ${terminalText(v.why)}); \`cordon check\` fails it unless that changes\n`);
    }
    // Armed as given too: the operator reaches the program as an argument, as in the reference.
    for (const found of shellOperatorVerifiers(config.verify.commands)) process.stderr.write(`${shellOperatorWarning(found)}\n`);
    // Armed as given too: a literal path may be what was meant, but `src` for `src/**` and `*.{js,ts}` are the usual slips.
    for (const warning of policyGlobWarnings(config.policy, config.repo.root, displayPath)) process.stderr.write(`${warning}\n`);
    // Typed in a subdirectory as if relative to it (`*.mjs` in src/): only without --repo, where the directory is the user's.
    if (flags.repo === undefined) for (const found of subdirectoryGlobs(config.policy, config.repo.root, process.cwd())) process.stderr.write(`${subdirectoryGlobWarning(found, displayPath)}\n`);
    if (!config.live) return { phase: 'armed', mode: config.mode, baseline: config.baseline, root: config.repo.root, live: false };
    const host = await this.host();
    // The check doctor reports too (loaded only here): an agent is named as refused only when its hooks are in place.
    const { hookedAgents } = await import('../install-hooks/state.js');
    const hooked = await hookedAgents(host, { projectDir: config.repo.root });
    const coverage = await liveCoverage(host.dialects.list().map((r) => r.entry), hooked);
    this.log(terminalText(liveCoverageText(coverage)));
    return {
      phase: 'armed',
      mode: config.mode,
      baseline: config.baseline,
      root: config.repo.root,
      live: true,
      live_agents: { refusing: coverage.refusing, not_refusing: coverage.notRefusing, not_hooked: coverage.notHooked },
    };
  }
}
