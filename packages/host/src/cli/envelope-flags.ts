import { Flags } from '@oclif/core';
import { SETTING_NUMBERS, type SettingsInput } from '../envelope/settings.js';
import { directoryFlag } from './directory-flag.js';
import { numberFlag } from './number-flag.js';

/**
 * Flags shared by the envelope commands. Policy flags carry no oclif defaults:
 * an absent flag lets `.cordon.json` (then the reference's defaults) decide, which
 * `resolveSettings` does.
 */
export const repoFlag = {
  repo: directoryFlag({ description: 'Any directory inside the work tree (default: the current directory); may also come before the command', helpValue: 'PATH' }),
};

const count = (key: 'max-files' | 'max-added-lines' | 'max-deleted-lines' | 'max-working-bytes' | 'max-binary-files', name: string, fallback: string, shared: { dependsOn?: string[]; helpGroup?: string }) =>
  numberFlag(SETTING_NUMBERS[key])({ description: `${name} (default ${fallback}; inclusive)`, helpValue: 'N', ...shared });

/**
 * Policy flags of `arm`, `run` and `check --base` (`dependsOn` ties them to another flag;
 * `helpGroup` lists them under a heading of their own in `--help`, as `check` does for the flags
 * that only apply with `--base`).
 * Repeatable flags take one value per occurrence (`multipleNonGreedy`, @oclif/core 4), so
 * `arm --allow 'src/**' "label"` leaves the label an argument: repeat the flag for more values.
 */
export function policyFlags(options: { dependsOn?: string[]; helpGroup?: string } = {}) {
  const shared = { ...(options.dependsOn ? { dependsOn: options.dependsOn } : {}), ...(options.helpGroup ? { helpGroup: options.helpGroup } : {}) };
  return {
    allow: Flags.string({ multiple: true, multipleNonGreedy: true, description: 'Glob a changed path must match (repeatable; at least one, here or in .cordon.json)', helpValue: 'GLOB', ...shared }),
    deny: Flags.string({ multiple: true, multipleNonGreedy: true, description: 'Glob no changed path may match (repeatable; wins over --allow)', helpValue: 'GLOB', ...shared }),
    'allow-ignored': Flags.string({ multiple: true, multipleNonGreedy: true, description: 'Ignored paths that may appear, change or vanish after arming (repeatable)', helpValue: 'GLOB', ...shared }),
    'max-files': count('max-files', 'Changed paths allowed', '25', shared),
    'max-added-lines': count('max-added-lines', 'Added lines allowed', '2000', shared),
    'max-deleted-lines': count('max-deleted-lines', 'Deleted lines allowed', '1000', shared),
    'max-working-bytes': count('max-working-bytes', 'Summed on-disk size of the changed files, bytes', '2097152 = 2 MiB', shared),
    'max-binary-files': count('max-binary-files', 'Binary files allowed', '2', shared),
    'allow-commits': Flags.boolean({ description: 'Let HEAD move away from the baseline (committed content is still audited)', ...shared }),
    verify: Flags.string({ multiple: true, multipleNonGreedy: true, description: 'Command that must exit 0 (repeatable, at most 8; split like a shell would, never run by one)', helpValue: 'CMD', ...shared }),
    'verify-timeout': numberFlag(SETTING_NUMBERS['verify-timeout'])({ description: 'Seconds each verifier may run (default 300, at most 604800; fractions allowed)', helpValue: 'S', ...shared }),
    'verify-output-cap': numberFlag(SETTING_NUMBERS['verify-output-cap'])({ description: 'Bytes each verifier may print per stream (default 4194304 = 4 MiB)', helpValue: 'BYTES', ...shared }),
  };
}

/** `--max-attempts` (arm only; used by `run`/`resume`). */
export const attemptsFlag = {
  'max-attempts': numberFlag(SETTING_NUMBERS['max-attempts'])({ description: 'Agent attempts allowed by run/resume (default 3)', helpValue: 'N' }),
};

/** `--live` (arm only; `run` always has it on): the hook refuses writes outside the policy before they happen. */
export const liveFlag = {
  live: Flags.boolean({ description: 'Live envelope: agents whose hooks cordon answers are refused a file write outside the policy before it happens (also "live": true in .cordon.json)' }),
};

/** Turns parsed policy flags into a {@link SettingsInput} (absent flags stay undefined). */
export function settingsFromFlags(flags: Record<string, unknown>): SettingsInput {
  const list = (k: string) => flags[k] as string[] | undefined;
  const num = (k: string) => flags[k] as number | undefined;
  return {
    allow: list('allow'),
    deny: list('deny'),
    allowIgnored: list('allow-ignored'),
    maxFiles: num('max-files'),
    maxAddedLines: num('max-added-lines'),
    maxDeletedLines: num('max-deleted-lines'),
    maxWorkingBytes: num('max-working-bytes'),
    maxBinaryFiles: num('max-binary-files'),
    allowCommits: flags['allow-commits'] ? true : undefined,
    verify: list('verify'),
    verifyTimeout: num('verify-timeout'),
    verifyOutputCap: num('verify-output-cap'),
    maxAttempts: num('max-attempts'),
    live: flags.live ? true : undefined,
  };
}
