import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError, logShownJson } from '../../cli/command-error.js';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { readPackageJson } from '../../plugins/data-package.js';
import { notInstalledError, notInstalledName, resolvePluginArgv, splitPluginVersion } from '../../plugins/plugin-names.js';
import { withoutCsi } from '../../output/control-sequences.js';
import { terminalText } from '../../output/terminal.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifInspect = commands['plugins:inspect'] as unknown as typeof Command & {
  prototype: { run(): Promise<unknown>; inspect(name: string, verbose?: boolean): Promise<unknown> };
};

/** oclif's look-up of an installed plugin by name, which this class's inspection builds on. */
const oclifLookups = OclifInspect.prototype as unknown as {
  findPlugin(name: string): ShownPlugin;
};

/** The fields of a plugin oclif's inspection shows as text (writable fields of oclif's `Plugin`). */
interface ShownPlugin {
  name: string;
  version: string;
  tag?: string;
  root: string;
  pjson: { homepage?: string };
}

/** The {@link ShownPlugin} fields that hold text, swapped for their escaped form while oclif draws its tree. */
const SHOWN_FIELDS = ['name', 'version', 'tag', 'root'] as const;

/** oclif's mark for a failed inspection (`this.log(bold.red('failed'))` before it rethrows). */
const FAILED_MARK = 'failed';

/**
 * `cordon plugins inspect PLUGIN…`: oclif's command (same arguments and flags), except that its
 * errors read as cordon's do, under `--json` too (cli/command-error.ts; oclif's own printed a
 * parse error's whole command configuration there): a plugin that is not installed is
 * `CORDON_BAD_INPUT`, exit 2, naming it JSON-quoted (`"a b"`). The root plugin's command wins over `@oclif/plugin-plugins`' one of
 * the same id. oclif's own run prints a red `failed` line on stdout before it rethrows an
 * inspection's error; that line is held back, so a failure prints cordon's error alone.
 */
export default class PluginsInspect extends OclifInspect {
  // oclif's class spells its usage with the command's id (`plugins:inspect PLUGIN...`) and no
  // flags; without one, help writes it as every other command's: as typed, flags and --json listed.
  static override usage: string | string[] | undefined = undefined;

  /** Set while the error of a failed inspection goes up through oclif's run, which marks it `failed`. */
  #failing = false;

  /** The real directories of the plugins being inspected, by the plugin (their `root` is escaped meanwhile). */
  #roots = new WeakMap<ShownPlugin, string>();

  /** The plugin {@link inspect} is having oclif draw, its text fields escaped meanwhile. */
  #drawing: ShownPlugin | undefined;

  /**
   * oclif's inspection of one plugin; a failure is remembered so that its `failed` mark is not
   * printed. oclif draws the plugin's name, version, tag, directory and homepage into a tree with
   * its own colours, so they are escaped for a terminal (output/terminal.ts) on the plugin object
   * while it draws (a linked plugin's directory may hold an escape sequence) and put back after;
   * the `--json` record gets the real ones.
   */
  async inspect(name: string, verbose?: boolean): Promise<unknown> {
    let plugin: ShownPlugin;
    try {
      plugin = oclifLookups.findPlugin.call(this, name);
    } catch (error) {
      this.#failing = true;
      throw error;
    }
    const real = { name: plugin.name, version: plugin.version, tag: plugin.tag, root: plugin.root };
    const pjson = plugin.pjson;
    this.#roots.set(plugin, plugin.root);
    this.#drawing = plugin;
    for (const field of SHOWN_FIELDS) if (typeof plugin[field] === 'string') plugin[field] = terminalText(plugin[field]!);
    if (typeof pjson.homepage === 'string') plugin.pjson = { ...pjson, homepage: terminalText(pjson.homepage) };
    try {
      const inspected = (await OclifInspect.prototype.inspect.call(this, name, verbose)) as Record<string, unknown>;
      return { ...inspected, ...real, pjson };
    } catch (error) {
      this.#failing = true;
      throw error;
    } finally {
      Object.assign(plugin, real, { pjson });
      this.#roots.delete(plugin);
      this.#drawing = undefined;
    }
  }

  /**
   * oclif's look-up by name, except that while {@link inspect} has a plugin's fields escaped,
   * oclif's inspection (which looks the plugin up again by the name it was given) gets that
   * plugin: by its escaped name it found none, so a linked plugin whose name holds an escape or
   * a bidi control was `no installed plugin is called …` while `cordon plugins` listed it.
   */
  findPlugin(name: string): ShownPlugin {
    return this.#drawing ?? oclifLookups.findPlugin.call(this, name);
  }

  /**
   * `Command.log`, except for oclif's `failed` mark after a failed inspection (see {@link inspect}),
   * and with the inspection's tree said in full ({@link emptyBranchesSaid}).
   */
  override log(message?: string, ...args: unknown[]): void {
    if (this.#failing && typeof message === 'string' && withoutCsi(message) === FAILED_MARK) {
      this.#failing = false;
      return;
    }
    super.log(typeof message === 'string' ? emptyBranchesSaid(message) : message, ...args);
  }

  /**
   * Where `dependency` of `plugin` is installed and its version, as Node would find it from the
   * plugin's root: the `node_modules` of the root and of every directory above it. oclif's own
   * lookup stops at the outermost `node_modules` in the path, so a linked plugin (a checkout,
   * whose dependencies npm hoisted to the workspace's root) showed none. `{null, null}` when none
   * is installed. Called by oclif's inspection, which draws both: they are escaped for a terminal,
   * and the plugin's real directory is used while its `root` is shown escaped (see {@link inspect}).
   */
  async findDep(plugin: { readonly root: string }, dependency: string): Promise<{ pkgPath: string | null; version: string | null }> {
    const root = this.#roots.get(plugin as ShownPlugin) ?? plugin.root;
    for (let dir = root; ; dir = dirname(dir)) {
      const pkgPath = join(dir, 'node_modules', ...dependency.split('/'));
      try {
        const version = (JSON.parse(await readFile(join(pkgPath, 'package.json'), 'utf8')) as { version?: unknown }).version;
        if (typeof version === 'string') return { pkgPath: terminalText(pkgPath), version: terminalText(version) };
      } catch {
        // not installed here: look one directory up
      }
      if (dirname(dir) === dir) return { pkgPath: null, version: null };
    }
  }

  override async run(): Promise<unknown> {
    // A first-party short name (`codex`) names its package, as for every plugins subcommand.
    this.argv = resolvePluginArgv(this.argv, this.config).map((word) => (word === '.' ? packageHere() : this.installedName(word)));
    try {
      return await OclifInspect.prototype.run.call(this);
    } catch (error) {
      // oclif's words for a name no installed plugin has (a plain Error here).
      const missing = (error as { oclif?: unknown }).oclif ? undefined : notInstalledName(error, ' not installed');
      if (missing !== undefined) throw notInstalledError(missing, this.config.bin);
      throw error;
    }
  }

  /**
   * `word` without the version it names (`@cordon/codex@0.1.0`, as `plugins install` takes it) when
   * the installed plugin of that name has that version or tag, for oclif's inspector, which finds a
   * plugin by its bare name; any other word as given.
   * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming both versions when the installed one differs.
   */
  private installedName(word: string): string {
    if (word.startsWith('-')) return word;
    const { name, version } = splitPluginVersion(word);
    const installed = version === undefined ? undefined : this.config.getPluginsList().find((p) => p.name === name);
    if (!installed) return word;
    if (installed.version === version || installed.tag === version) return name;
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${word}: the installed ${name} is version ${installed.version}; inspect it as ${name}`, { details: { plugin: name, asked: version, installed: installed.version } });
  }

  /** `--json` as every cordon command prints it (cli/command-error.ts `logShownJson`): what a plugin's package.json says is escaped there too. */
  override logJson(json: unknown): void {
    logShownJson(json);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}

/**
 * The package name `plugins inspect .` stands for: the `name` of `./package.json`. oclif read the
 * file with `JSON.parse` and said `SyntaxError: Unexpected end of JSON input` of a truncated one,
 * `ENOENT` of none and a TypeError of `[]`, naming no file.
 * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming the file and what is wrong with it.
 */
function packageHere(): string {
  const file = resolve('package.json');
  const read = readPackageJson(file);
  const refuse = (why: string) => new CordonError(ERROR_CODES.BAD_INPUT, `\`plugins inspect .\` inspects the plugin whose package.json is here, but ${file} ${why}`, { details: { file } });
  if ('problem' in read) {
    const { problem, detail } = read.problem;
    throw refuse(problem === 'missing' ? 'does not exist' : problem === 'syntax' ? `is not valid JSON: ${detail}` : problem === 'not-object' ? 'does not hold a JSON object' : problem === 'unreadable' ? `cannot be read (${detail})` : detail);
  }
  const { name } = read.value;
  if (typeof name !== 'string' || name === '') throw refuse('has no package name (a string `name`)');
  return name;
}

/** A branch line of oclif's inspection tree (`   ├─ commands`) that may have children, and where its mark is. */
const SECTION = /^(?<lead>[ │]*)[├└]─ (?:commands|dependencies)$/;

/**
 * oclif's inspection tree with each empty section said as such: a plugin with no commands or no
 * dependencies got a bare `└─ dependencies` line with nothing under it, which reads as if the
 * list were cut off; it reads `└─ dependencies none` instead. A section is empty when the line
 * after it is not deeper in the tree. Other text is returned as it is.
 */
export function emptyBranchesSaid(text: string): string {
  const lines = text.split('\n');
  return lines
    .map((line, i) => {
      const plain = withoutCsi(line);
      const lead = SECTION.exec(plain)?.groups?.lead;
      if (lead === undefined) return line;
      const next = withoutCsi(lines[i + 1] ?? '').search(/[├└]─ /);
      return next > lead.length ? line : `${line} none`;
    })
    .join('\n');
}
