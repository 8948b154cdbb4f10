import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSampler } from '../../packages/host/src/telemetry/sampler/ensure.js';
import { makeSandbox } from './cli.js';
import { fakeAgent, killGroup, running, samplerEvents, waitFor } from './sampler.js';

describe.runIf(process.platform === 'linux')('sandbox cleanup', () => {
  it('ends the session samplers started in the sandbox, then removes it', async () => {
    const sandbox = makeSandbox('cordon-samplers-');
    const agent = fakeAgent();
    try {
      const dir = join(sandbox.dataDir, 'runs', 'session-1');
      const started = ensureSampler({ dir, rootPid: agent.pid!, env: { ...sandbox.env, CORDON_INTERVAL: '20' } });
      expect(started.started).toBe(true);
      if (!started.started) return;
      await waitFor('the sampler writing', () => samplerEvents(dir).find((e) => e.event === 'start'));
      sandbox.cleanup();
      expect(running(started.pid)).toBe(false);
      expect(existsSync(sandbox.root)).toBe(false);
    } finally {
      killGroup(agent.pid);
    }
  });
});
