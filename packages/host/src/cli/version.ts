import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_ROOT } from '../util/host-root.js';
import { asksForJson } from './json-flag.js';

/**
 * `cordon --version` and `cordon --version --json`: what oclif's `--version` line says (`@cordon/host/0.1.0 linux-x64
 * node-v20.20.2`, its `config.userAgent`) as one JSON document. oclif prints that line for the
 * version flag whatever follows it, so `bin/run.cjs` asks here first (cli/environment.ts
 * `prepareOclif`), before oclif loads.
 */

/** The `--version --json` document. */
export interface VersionDocument {
  /** The host package (`@cordon/host`). */
  readonly name: string;
  /** Its version (`0.1.0`). */
  readonly version: string;
  /** Node's version, without the `v` (`20.20.2`). */
  readonly node: string;
  /** `process.platform` (`linux`, `darwin`, `win32`). */
  readonly platform: string;
  /** `process.arch` (`x64`, `arm64`). */
  readonly arch: string;
}

/** The host's package.json, as far as the version flag needs it. */
interface HostPackage {
  readonly name: string;
  readonly version: string;
  readonly oclif?: { readonly additionalVersionFlags?: readonly string[] };
}

/**
 * The document to print when `args` (the command line after `cordon`) asks for the version as
 * JSON: the version flag first, as oclif reads it (`--version`, or one of the package's
 * `additionalVersionFlags`: `-v`), and `--json` anywhere before a `--`. Undefined for every other
 * command line, which oclif handles as before; the package is read only when both flags are there.
 */
export function versionJson(args: readonly string[]): VersionDocument | undefined {
  if (!asksForJson(args)) return undefined;
  return versionDocument(args);
}

/**
 * The line oclif prints for its version flag (`@cordon/host/0.1.0 linux-x64 node-v20.20.2`, its
 * `config.userAgent`) when `args` asks for the version without `--json`, else undefined. oclif
 * loads @oclif/core, every plugin's manifest and the `init` hooks before it prints that line;
 * `bin/run.cjs` prints it without them (cli/environment.ts `prepareOclif`).
 */
export function versionLine(args: readonly string[]): string | undefined {
  if (asksForJson(args)) return undefined;
  const document = versionDocument(args);
  return document && `${document.name}/${document.version} ${document.platform}-${document.arch} node-v${document.node}`;
}

/**
 * The version facts when `args` starts with the version flag as oclif reads it (`--version`, or
 * one of the package's `additionalVersionFlags`: `-v`; oclif ignores what follows), else
 * undefined; the package is read only then.
 */
function versionDocument(args: readonly string[]): VersionDocument | undefined {
  const first = args[0];
  if (first === undefined || !first.startsWith('-')) return undefined;
  const pkg = JSON.parse(readFileSync(join(HOST_ROOT, 'package.json'), 'utf8')) as HostPackage;
  if (first !== '--version' && !(pkg.oclif?.additionalVersionFlags ?? []).includes(first)) return undefined;
  return { name: pkg.name, version: pkg.version, node: process.versions.node, platform: process.platform, arch: process.arch };
}
