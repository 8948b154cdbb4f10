/**
 * The two child environments every bench that starts Node processes measures in, side by side in
 * one run (each ratio is printed with and without the variable). Node 20 reads and parses the file
 * named by `NODE_EXTRA_CA_CERTS` at every start, 50–100 ms of CPU on this machine; users do not
 * have the variable, so the row without it is the one a target is judged on.
 */
import { existsSync } from 'node:fs';

/** One child environment of a bench: `target` is true for the row without the CA variable. */
export interface CaMode {
  /** Short label for tables: `no CA (target)` or `with CA`. */
  label: string;
  /** True for the environment without `NODE_EXTRA_CA_CERTS`: the row a target is judged on. */
  target: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * The CA bundle the "with" row sets: this process's `NODE_EXTRA_CA_CERTS`, else the system bundle
 * Debian and Ubuntu install (`/etc/ssl/certs/ca-certificates.crt`); undefined when neither exists.
 */
export function caFile(): string | undefined {
  const file = process.env.NODE_EXTRA_CA_CERTS || '/etc/ssl/certs/ca-certificates.crt';
  return existsSync(file) ? file : undefined;
}

/**
 * `env` without `NODE_EXTRA_CA_CERTS` (the target row, first) and with it set to {@link caFile}
 * (context: what this sandbox adds to every Node start). The "with" row is left out when there is
 * no CA file to point at.
 */
export function caModes(env: NodeJS.ProcessEnv): CaMode[] {
  const without: NodeJS.ProcessEnv = { ...env };
  delete without.NODE_EXTRA_CA_CERTS;
  const modes: CaMode[] = [{ label: 'no CA (target)', target: true, env: without }];
  const file = caFile();
  if (file) modes.push({ label: 'with CA', target: false, env: { ...env, NODE_EXTRA_CA_CERTS: file } });
  return modes;
}
