import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { requireAgent } from '../../../../../test/support/agents.js';
import { makeSandbox } from '../../../../../test/support/cli.js';
import { codexSession, FakeModelServer, holdPerTest } from '../../../../../test/support/fake-models/index.js';
import { linkCodex, pcodx, tableRows } from '../support.js';

const held = holdPerTest();

/** A Responses server that refuses every request as OpenAI does a bad or missing key: 401. */
class UnauthorizedResponses extends FakeModelServer {
  private constructor() {
    super('openai-responses', () => ({ status: 401, json: { error: { message: 'Incorrect API key provided: FAKE_REFUSAL', type: 'invalid_request_error', code: 'invalid_api_key' } } }), { steps: [], maxRecorded: 100 });
  }

  static start(): Promise<UnauthorizedResponses> {
    return new UnauthorizedResponses().listen();
  }
}

/**
 * Runs `cordon pcodx model-turn` with a timeout far longer than the test's own kill deadline, so
 * only an error surfaced as it arrives lets the command end on its own.
 */
async function modelTurnAgainst(configure: (codexHome: string, origin: string) => void, dropEnv: readonly string[] = [], origin?: string) {
  const box = held.sandbox(makeSandbox('cordon-model-turn-err-'));
  linkCodex(box);
  const server = held.server(await UnauthorizedResponses.start());
  const codex = codexSession({ origin: origin ?? server.origin, home: box.dir('agent-home'), workdir: box.dir('work'), env: box.env });
  configure(join(codex.home, '.codex'), origin ?? server.origin);
  const db = join(box.root, 'pcodx.sqlite3');
  const env: NodeJS.ProcessEnv = { ...codex.env, PCODX_DB: db };
  for (const key of dropEnv) delete env[key];
  expect((await pcodx(box, db, ['init', '--session', 'e', '--cwd', codex.workdir], { env })).exitCode).toBe(0);
  const run = await pcodx(box, db, ['model-turn', '--session', 'e', '--text', 'hello?', '--codex-bin', requireAgent('codex').bin, '--timeout-seconds', '3600'], { env, cwd: codex.workdir, timeoutMs: 100_000 });
  return { run, server, db, usageLog: join(box.root, 'pcodx.usage.jsonl') };
}

it('a model server that answers 401 ends model-turn with the app-server’s own error, not a timeout; nothing is recorded or logged', async () => {
  const { run, server, db, usageLog } = await modelTurnAgainst(() => undefined);
  expect(run.signal).toBeNull();
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toMatch(/^error: codex app-server reported: unexpected status 401 Unauthorized: Incorrect API key provided: FAKE_REFUSAL/);
  expect(run.stderr).not.toContain('did not finish');
  expect(server.requestCount).toBeGreaterThan(0);
  expect(tableRows(db, 'select count(*) as n from messages')).toEqual([{ n: 0 }]);
  expect(existsSync(usageLog)).toBe(false);
});

it('without a Codex login (the openai provider, no key, retries on) the first 401 ends the turn at once with that error', async () => {
  const { run, server, db } = await modelTurnAgainst(
    (codexHome, origin) =>
      writeFileSync(
        join(codexHome, 'config.toml'),
        ['model = "gpt-5.5"', 'approval_policy = "never"', 'check_for_update_on_startup = false', `openai_base_url = "${origin}/v1"`, ''].join('\n'),
      ),
    ['OPENAI_API_KEY', 'CODEX_API_KEY', 'CORDON_FAKE_OPENAI_KEY'],
  );
  expect(run.signal).toBeNull();
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toMatch(/^error: codex app-server reported: Reconnecting\.\.\. \d\/5 \(unexpected status 401 Unauthorized: .*FAKE_REFUSAL/);
  // Escaped for the terminal: the server's body came with CR LF inside.
  expect(run.stderr.trimEnd()).not.toMatch(/[\r\u001b]/);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(server.requestCount).toBeLessThan(6);
  expect(tableRows(db, 'select count(*) as n from messages')).toEqual([{ n: 0 }]);
});

it('without network (nothing listens at the model server’s address) the app-server’s connection error ends the turn, not the timeout', async () => {
  // A loopback port that was just free: connections to it are refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const { run, db } = await modelTurnAgainst(() => undefined, [], `http://127.0.0.1:${port}`);
  expect(run.signal).toBeNull();
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toMatch(/^error: codex app-server reported: .+/);
  expect(run.stderr).toContain('Connection failed');
  expect(run.stderr).not.toContain('did not finish');
  expect(tableRows(db, 'select count(*) as n from messages')).toEqual([{ n: 0 }]);
});
