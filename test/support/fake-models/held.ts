import { afterEach } from 'vitest';
import type { Sandbox } from '../cli.js';
import type { FakeModelServer } from './http-server.js';
import { killAgents } from './launch.js';

/** What an agent test hands over for release after it: its sandboxes and fake model servers. */
export interface Held {
  /** Removes `sandbox` after the test; returns it. */
  sandbox<T extends Sandbox>(sandbox: T): T;
  /** Closes `server` after the test; returns it. */
  server<T extends FakeModelServer>(server: T): T;
}

/**
 * Registers (vitest `afterEach`) the teardown every end-to-end agent test needs, in this order:
 * `first` (e.g. the runner suite's `killSpawned`), the agents' process groups (`killAgents`),
 * the fake model servers, the sandboxes. Call once at the top of a test file.
 */
export function holdPerTest(first?: () => void): Held {
  const sandboxes: Sandbox[] = [];
  const servers: FakeModelServer[] = [];
  afterEach(async () => {
    first?.();
    killAgents();
    for (const server of servers.splice(0)) await server.close();
    for (const sandbox of sandboxes.splice(0)) sandbox.cleanup();
  });
  return {
    sandbox: (sandbox) => {
      sandboxes.push(sandbox);
      return sandbox;
    },
    server: (server) => {
      servers.push(server);
      return server;
    },
  };
}
