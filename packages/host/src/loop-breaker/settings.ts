import { join } from 'node:path';
import type { Logger } from '@cordon/plugin-api';
import { readRegularFileIfExists } from '../io/safe-read.js';
import { parseJsonText } from '../util/json-syntax.js';

/** Consecutive failures of one command at which the loop breaker answers, by default (AgentSight §5.2.2: 3 cycles). */
export const DEFAULT_LOOP_THRESHOLD = 3;
/** Smallest threshold accepted: at 1 every failure would be called a loop. */
export const MIN_LOOP_THRESHOLD = 2;
/** Largest threshold accepted. */
export const MAX_LOOP_THRESHOLD = 1000;
/** The hook's settings file in the configuration directory; its `loop-breaker` key sets the threshold. */
export const HOOK_SETTINGS_FILE = 'hook.json';

/** The loop breaker's threshold, or `off`. */
export type LoopThreshold = number | 'off';

/**
 * What one setting says: `off` (also `false`, `0`), a whole number from {@link MIN_LOOP_THRESHOLD}
 * to {@link MAX_LOOP_THRESHOLD}, or `undefined` when it is anything else.
 */
export function parseLoopSetting(value: unknown): LoopThreshold | undefined {
  if (value === false || value === 0) return 'off';
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'off' || v === 'false' || v === '0') return 'off';
    if (!/^\d+$/.test(v)) return undefined;
    value = Number(v);
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= MIN_LOOP_THRESHOLD && value <= MAX_LOOP_THRESHOLD ? value : undefined;
}

/**
 * The threshold in force (docs/reference.md): `CORDON_LOOP_BREAKER` when set and not empty, else
 * the `loop-breaker` key of `<config>/hook.json`, else {@link DEFAULT_LOOP_THRESHOLD}. A value that
 * is not a setting is logged and the next source applies: a typo never breaks the hook. Read only
 * after a failed shell call, so other calls never open the file.
 */
export function loopThreshold(env: Readonly<Record<string, string | undefined>>, configDir: string, log: Logger): LoopThreshold {
  const raw = env.CORDON_LOOP_BREAKER;
  if (raw !== undefined && raw.trim() !== '') {
    const parsed = parseLoopSetting(raw);
    if (parsed !== undefined) return parsed;
    log.warn('CORDON_LOOP_BREAKER ignored: not off or a whole number from 2 to 1000', { value: raw.slice(0, 40) });
  }
  const file = join(configDir, HOOK_SETTINGS_FILE);
  try {
    const text = readRegularFileIfExists(file, { maxBytes: 64 * 1024 });
    if (text !== undefined) {
      const settings = parseJsonText(text.toString('utf8'));
      const value = settings && typeof settings === 'object' && !Array.isArray(settings) ? (settings as Record<string, unknown>)['loop-breaker'] : undefined;
      if (value !== undefined) {
        const parsed = parseLoopSetting(value);
        if (parsed !== undefined) return parsed;
        log.warn(`${file}: loop-breaker ignored: not "off" or a whole number from 2 to 1000`, { file });
      }
    }
  } catch (error) {
    log.warn(`${file} unreadable; the loop breaker uses its default`, { file, error: error instanceof Error ? error.message : String(error) });
  }
  return DEFAULT_LOOP_THRESHOLD;
}
