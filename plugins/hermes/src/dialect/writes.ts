import { patchTargets } from '@cordon/plugin-api';

/**
 * The files a Hermes Agent call writes (`Dialect.writeTargets`); `undefined` for every tool but
 * `write_file` and `patch`, decided by name. Hermes' tool schemas (`tools/file_tools.py` of
 * NousResearch/hermes-agent): `write_file` names its file in `path`; `patch` takes `mode`
 * (`replace`, the default, edits `path`) or `mode: "patch"`, whose `patch` argument is a V4A
 * multi-file patch (`*** Begin Patch` … `*** End Patch`) naming its files in headers.
 *
 * So a `patch` call's targets are its `path`, if any (Hermes checks and locks it in either mode),
 * and every file its `patch` text adds, updates or deletes and both ends of a `*** Move File:`
 * (`patchTargets` of `@cordon/plugin-api`, grammar `v4a`), whatever `mode` says: a patch text
 * Hermes does not apply writes nothing, so judging its files costs nothing. Paths are as written
 * (relative ones resolve against the call's working directory, `~/` against the home directory,
 * as Hermes resolves them); a malformed patch yields the headers it has, never an error.
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (toolName !== 'write_file' && toolName !== 'patch') return undefined;
  const targets: string[] = [];
  const path = toolInput.path;
  if (typeof path === 'string' && path !== '') targets.push(path);
  if (toolName === 'patch' && typeof toolInput.patch === 'string') targets.push(...patchTargets(toolInput.patch, 'v4a'));
  return targets;
}
