import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { policyFlags, repoFlag, settingsFromFlags } from '../cli/envelope-flags.js';
import type { AuditRecord } from '../envelope/audit/record.js';
import { check, checkRange } from '../envelope/check.js';
import { renderAudit } from '../envelope/render.js';

export default class Check extends CordonCommand {
  static override summary = 'Audit the changes against the armed envelope (or a committed range with --base)';
  static override description = [
    'Exit 0 accepted, 3 rejected, 2 refused (nothing armed, bad state, lock held, git error).',
    'With --base the committed range base..head is audited without arming; the policy is .cordon.json as the base commit holds it, overridden by the flags given here.',
    'Verifiers run in the work tree, so with --base they require it to be exactly the head (checked out, no uncommitted or untracked changes; ignored files are fine).',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json', `<%= config.bin %> <%= command.id %> --base origin/main --allow 'src/**'`];
  static override flags = {
    ...repoFlag,
    base: Flags.string({ description: 'Audit the committed range from this revision instead of an armed envelope (CI mode)', helpValue: 'REF' }),
    head: Flags.string({ description: 'End of the range (default HEAD)', helpValue: 'REF', dependsOn: ['base'] }),
    ...policyFlags({ dependsOn: ['base'] }),
  };

  async run(): Promise<AuditRecord> {
    const { flags } = await this.parse(Check);
    // Plugins load while git works; the audit awaits them only when it fires the `audit` hook.
    const host = this.host();
    host.catch(() => undefined);
    const hooks = async () => (await host).hooks;
    const audit = flags.base
      ? await checkRange({ repo: flags.repo, base: flags.base, head: flags.head, flags: settingsFromFlags(flags), hooks })
      : (await check({ repo: flags.repo, hooks })).audit;
    process.exitCode = audit.passed ? 0 : 3;
    this.log(renderAudit(audit));
    return audit;
  }
}
