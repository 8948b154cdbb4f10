import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { split } from 'shlex';
import { parse } from 'yaml';
import { nodeFinding } from '../../packages/host/src/doctor/runtime.js';
import { REPO_ROOT } from './cli.js';

/** One step of a GitHub Actions job, as the workflow file writes it. */
export interface WorkflowStep {
  readonly name?: string;
  readonly uses?: string;
  readonly with?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, unknown>>;
  readonly run?: string;
}

/** The sample workflow users copy (docs/envelopes.md names it). */
export const SAMPLE_WORKFLOW = join(REPO_ROOT, 'docs/ci/github-workflow.yml');

/** Every step of every job of a workflow's YAML text, in order. */
export function workflowSteps(text: string): WorkflowStep[] {
  const doc = parse(text) as { jobs?: Record<string, { steps?: WorkflowStep[] }> };
  return Object.values(doc.jobs ?? {}).flatMap((job) => job.steps ?? []);
}

/** The names of this repository's workspace packages: none is on the public npm registry (docs/plugins.md). */
export function unpublishedPackages(): Set<string> {
  const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const names = new Set<string>();
  for (const pattern of root.workspaces) {
    const dirs = pattern.endsWith('/*') ? readdirSync(join(REPO_ROOT, pattern.slice(0, -2))).map((d) => join(pattern.slice(0, -2), d)) : [pattern];
    for (const dir of dirs) {
      try {
        names.add((JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as { name: string }).name);
      } catch {
        // not a package
      }
    }
  }
  return names;
}

/** npm's spellings of `install` (its command aliases, npm 11). */
const INSTALL = new Set(['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add']);
/** npm options of an install that take the next word as their value when not written with `=`. */
const VALUED = new Set(['--prefix', '--registry', '--cache', '--tag', '--userconfig', '--globalconfig', '-C', '--omit', '--include', '--install-strategy']);

/** The commands of a `run:` script, each as words (lines, `&&`, `||`, `;` and `|` split commands). */
function commands(script: string): string[][] {
  const out: string[][] = [];
  for (const line of script.split('\n')) {
    for (const part of line.split(/&&|\|\||;|\|/)) {
      try {
        const words = split(part.trim());
        if (words.length) out.push(words);
      } catch {
        // not a command this check reads
      }
    }
  }
  return out;
}

/** The registry scope a `name` is in (`@cordon/host` → `@cordon`), or undefined. */
const scopeOf = (name: string): string | undefined => (name.startsWith('@') ? name.split('/')[0] : undefined);

/** A package spec's name without its version or tag (`@cordon/host@0.1.0` → `@cordon/host`), or undefined for a path, URL or tarball. */
function specName(spec: string): string | undefined {
  if (/^(\.|\/|~|file:|git\+|git:|https?:|github:)/.test(spec) || /\.(tgz|tar\.gz)$/.test(spec)) return undefined;
  const at = spec.indexOf('@', 1);
  return at < 0 ? spec : spec.slice(0, at);
}

/**
 * What keeps a workflow from working as written, for a user who copies it: a `setup-node` whose
 * Node is not one cordon is tested on or is past its end of life (doctor's own finding), and a
 * global `npm install` of a package in `unpublished` from the public registry, that is, before any
 * step pointed the package's scope at another registry (`npm config set @scope:registry URL`,
 * setup-node's `scope` with a `registry-url`) and without `--registry`: there the name is not
 * published, and one day may be someone else's (dependency confusion, docs/plugins.md). An install
 * from a path or tarball (the checkout) is fine. Empty when nothing is wrong.
 */
export function workflowProblems(text: string, unpublished: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const scoped = new Set<string>();
  for (const step of workflowSteps(text)) {
    if (step.uses?.startsWith('actions/setup-node@')) {
      const version = String(step.with?.['node-version'] ?? '');
      const finding = nodeFinding(`v${/^\d+/.exec(version)?.[0] ?? version}.0.0`);
      if (finding.status !== 'ok') problems.push(`setup-node node-version ${version}: ${finding.message}`);
      const scope = step.with?.scope;
      if (typeof scope === 'string' && step.with?.['registry-url']) scoped.add(scope);
    }
    for (const words of commands(step.run ?? '')) {
      if (words[0] !== 'npm') continue;
      const configured = words[1] === 'config' && words[2] === 'set' ? /^(@[^:/]+):registry(=|$)/.exec(words[3] ?? '')?.[1] : undefined;
      if (configured) scoped.add(configured);
      const at = words.findIndex((w, i) => i > 0 && INSTALL.has(w));
      if (at < 0 || words.slice(1, at).some((w) => !w.startsWith('-'))) continue;
      const rest = words.slice(at + 1);
      if (!rest.some((w) => w === '-g' || w === '--global' || w === '--location=global')) continue;
      if (rest.some((w) => w === '--registry' || w.startsWith('--registry='))) continue;
      for (let i = 0; i < rest.length; i++) {
        const word = rest[i]!;
        if (word.startsWith('-')) {
          if (VALUED.has(word)) i++;
          continue;
        }
        const name = specName(word);
        const scope = name === undefined ? undefined : scopeOf(name);
        if (name !== undefined && unpublished.has(name) && !(scope !== undefined && scoped.has(scope))) {
          problems.push(`\`${words.join(' ')}\` installs ${name} from the public npm registry, where it is not published: point the ${scope ?? name} scope at your team's registry first (npm config set ${scope ?? name}:registry URL), or install from the checkout`);
        }
      }
    }
  }
  return problems;
}

/**
 * `text` with each GitHub Actions expression `${{ name }}` replaced by `values[name]`.
 * @throws Error naming an expression `values` has no value for.
 */
export function expandExpressions(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for the expression \${{ ${name} }}`);
    return value;
  });
}
