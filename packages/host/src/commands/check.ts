import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { outputFileFlag } from '../cli/output-file-flag.js';
import { policyFlags, repoFlag, settingsFromFlags } from '../cli/envelope-flags.js';
import type { AuditRecord } from '../envelope/audit/record.js';
import { check, checkRange } from '../envelope/check.js';
import { renderAudit } from '../envelope/render.js';
import { CHECK_FORMATS, refusalAnnotation, renderCheckFormat } from '../envelope/formats/index.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { writeReport } from '../output/report-file.js';
import { enableStatus } from '../output/status.js';

export default class Check extends CordonCommand {
  static override summary = 'Audit the changes against the armed envelope (or a committed range with --base)';
  static override description = [
    'Exit 0 accepted, 3 rejected, 2 refused (nothing armed, bad state, lock held, git error).',
    'With --base the committed range base..head (what head changes since it forked from base, from their merge base) is audited without arming; the policy is .cordon.json as the base commit holds it, overridden by the flags given here.',
    'Verifiers run in the work tree, so with --base they require it to be exactly the head (checked out, no uncommitted or untracked changes; ignored files are fine).',
    '--format github prints GitHub Actions workflow commands (an ::error annotation per violation), sarif a SARIF 2.1.0 log, junit a JUnit XML report of the verifiers; --out FILE writes the report to FILE and prints the text verdict (--out - is stdout). A report written inside the work tree is not audited by later checks while its content is what cordon wrote.',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json', `<%= config.bin %> <%= command.id %> --base origin/main --allow 'src/**'`, '<%= config.bin %> <%= command.id %> --base origin/main --format github', '<%= config.bin %> <%= command.id %> --format sarif --out cordon.sarif'];
  static override flags = {
    ...repoFlag,
    base: Flags.string({ description: 'Audit the committed range from this revision instead of an armed envelope (CI mode)', helpValue: 'REF' }),
    head: Flags.string({ description: 'End of the range (default HEAD; needs --base)', helpValue: 'REF' }),
    // Range-only: refused without --base in run(), with a message that says why.
    ...policyFlags({ helpGroup: 'RANGE (WITH --BASE)' }),
    format: Flags.string({ description: 'Output format for CI systems (--json stays the audit record)', options: [...CHECK_FORMATS], default: 'text' }),
    out: outputFileFlag({ description: 'Write the --format report to this file instead of stdout (stdout gets the text verdict)', helpValue: 'FILE' }),
  };

  /** `--format github`: a refusal is also an `::error` workflow command on stdout (formats/github.ts `refusalAnnotation`). */
  protected override errorAnnotation(): ((error: { code: string; message: string }) => string) | undefined {
    return formatAsked(this.argv) === 'github' ? refusalAnnotation : undefined;
  }

  async run(): Promise<AuditRecord> {
    const { flags } = await this.parse(Check);
    enableStatus({ json: this.jsonEnabled() });
    const format = flags.format as (typeof CHECK_FORMATS)[number];
    if (flags.base === undefined) {
      const rangeOnly = ['head', ...Object.keys(policyFlags())].filter((name) => (flags as Record<string, unknown>)[name] !== undefined);
      // --head alone is no policy flag: it ends a range that only --base begins.
      if (rangeOnly.length === 1 && rangeOnly[0] === 'head') {
        throw new CordonError(
          ERROR_CODES.BAD_INPUT,
          `--head needs --base: it names the end of the committed range that --base REF begins (\`cordon check --base origin/main --head REF\`); without --base, \`cordon check\` audits the armed envelope against the work tree`,
          { details: { flags: ['--head'] } },
        );
      }
      if (rangeOnly.length > 0) {
        const named = rangeOnly.map((name) => `--${name}`).join(', ');
        throw new CordonError(
          ERROR_CODES.BAD_INPUT,
          `${named} ${rangeOnly.length === 1 ? 'applies' : 'apply'} only to a committed range: add --base REF. An armed envelope is checked against the policy it was armed with (\`cordon arm\` sets it; \`cordon status\` shows it)`,
          { details: { flags: rangeOnly.map((name) => `--${name}`) } },
        );
      }
    }
    if (this.jsonEnabled() && (format !== 'text' || flags.out !== undefined)) throw new CordonError(ERROR_CODES.BAD_INPUT, '--json prints the audit record; it cannot be combined with --format or --out');
    // Plugins load while git works; the audit awaits them only when it fires the `audit` hook.
    const host = this.host();
    host.catch(() => undefined);
    const hooks = async () => (await host).hooks;
    // An empty --base (an unset variable in CI) is a range asked for: checkRange refuses it by name.
    const audit = flags.base !== undefined
      ? await checkRange({ repo: flags.repo, base: flags.base, head: flags.head, flags: settingsFromFlags(flags), hooks, warn: (line) => process.stderr.write(`${line}\n`) })
      : (await check({ repo: flags.repo, hooks })).audit;
    // The exit code is set before anything is printed: a reader that closes stdout early still sees it.
    process.exitCode = audit.passed ? 0 : 3;
    const report = renderCheckFormat(audit, format, { toolVersion: this.config.version });
    if (flags.out !== undefined && flags.out !== '-') {
      await writeReport(flags.out, report.endsWith('\n') ? report : `${report}\n`);
      this.log(renderAudit(audit));
    } else if (format === 'text') this.log(report);
    else process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
    return audit;
  }
}

/**
 * The `--format` value as typed in `argv` (`--format github`, `--format=github`; the last one
 * given), read without oclif so that a refusal raised while the flags are parsed still knows it;
 * undefined when none is given before `--`.
 */
function formatAsked(argv: readonly string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--format' && i + 1 < argv.length) format = argv[++i];
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
  }
  return format;
}
