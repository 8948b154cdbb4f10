import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@cordon/plugin-api';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_THRESHOLD, loopThreshold, parseLoopSetting } from '../../src/loop-breaker/index.js';
import { tempDir } from '../hot/support.js';

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = () => undefined;
  return { warnings, debug: noop, info: noop, warn: (message: string) => void warnings.push(message), error: (message: string) => void warnings.push(message) } as Logger & { warnings: string[] };
}

describe('parseLoopSetting', () => {
  it.each([
    ['off', 'off'],
    ['OFF', 'off'],
    ['false', 'off'],
    ['0', 'off'],
    [false, 'off'],
    [0, 'off'],
    ['3', 3],
    [' 5 ', 5],
    [2, 2],
    [1000, 1000],
  ])('%j → %j', (value, expected) => expect(parseLoopSetting(value)).toBe(expected));

  it.each([['1'], [1], ['1001'], ['3.5'], [3.5], ['-3'], ['three'], [''], [null], [true], [['3']]])('%j is not a setting', (value) => {
    expect(parseLoopSetting(value)).toBeUndefined();
  });
});

describe('loopThreshold', () => {
  const tmp = tempDir('cordon-loop-settings-');
  afterEach(() => tmp.cleanup());
  const config = (text: string) => {
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(join(tmp.dir, 'hook.json'), text);
  };

  it('defaults to 3 without a variable or a file', () => {
    expect(loopThreshold({}, join(tmp.dir, 'none'), recordingLog())).toBe(DEFAULT_LOOP_THRESHOLD);
  });

  it('the file sets it; the variable wins over the file', () => {
    config('{"loop-breaker": 5}');
    expect(loopThreshold({}, tmp.dir, recordingLog())).toBe(5);
    expect(loopThreshold({ CORDON_LOOP_BREAKER: '4' }, tmp.dir, recordingLog())).toBe(4);
    expect(loopThreshold({ CORDON_LOOP_BREAKER: 'off' }, tmp.dir, recordingLog())).toBe('off');
    config('{"loop-breaker": "off"}');
    expect(loopThreshold({}, tmp.dir, recordingLog())).toBe('off');
    expect(loopThreshold({ CORDON_LOOP_BREAKER: '' }, tmp.dir, recordingLog())).toBe('off');
  });

  it('a bad value is logged and the next source applies; the hook never fails on it', () => {
    config('{"loop-breaker": 5}');
    const log = recordingLog();
    expect(loopThreshold({ CORDON_LOOP_BREAKER: 'sometimes' }, tmp.dir, log)).toBe(5);
    expect(log.warnings.join('\n')).toContain('CORDON_LOOP_BREAKER ignored');
    for (const text of ['{"loop-breaker": 1}', '{"loop-breaker": "often"}', 'not json', '[]']) {
      config(text);
      const l = recordingLog();
      expect(loopThreshold({}, tmp.dir, l), text).toBe(DEFAULT_LOOP_THRESHOLD);
      if (text !== '[]') expect(l.warnings.join('\n'), text).toContain(join(tmp.dir, 'hook.json'));
    }
  });

  it('a hook.json that is a symbolic link is not followed (logged, default)', () => {
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(join(tmp.dir, 'elsewhere.json'), '{"loop-breaker": 7}');
    symlinkSync(join(tmp.dir, 'elsewhere.json'), join(tmp.dir, 'hook.json'));
    const log = recordingLog();
    expect(loopThreshold({}, tmp.dir, log)).toBe(DEFAULT_LOOP_THRESHOLD);
    expect(log.warnings.join('\n')).toContain('unreadable');
  });
});
