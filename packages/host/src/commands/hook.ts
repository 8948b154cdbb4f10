import { Command, Flags } from '@oclif/core';
import { runHook } from '../hot/main.js';

/**
 * `cordon hook`: the command agents run on every tool call. `bin/run.cjs` sends it to the hot path
 * (`src/hot/`) before oclif loads; this class exists for `--help`, the manifest and tests, and
 * runs the very same code (`runHook`). Set `CORDON_HOOK_VIA_OCLIF=1` to run it through oclif.
 * Like the hot path it never fails the agent: any error ends in exit 0 with nothing printed.
 */
export default class Hook extends Command {
  static override summary = 'Handle one agent hook event read from stdin (run by the agents, not by hand)';
  static override description = [
    'Reads the JSON payload an agent sends to its hooks, recognises the dialect (or takes --agent), fires beforeToolCall/afterToolCall,',
    'appends a marker to <data>/runs/<session>/markers.jsonl and, when a plugin decides, prints the decision in the agent\'s own format.',
    'Exits 0 and prints nothing otherwise. CORDON_DISABLE=1 turns it into a no-op. Install it with `cordon install-hooks`.',
  ].join('\n');
  static override examples = [
    "echo '{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s1\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_use_id\":\"t1\"}' | <%= config.bin %> hook --agent claude-code",
  ];
  static override strict = false;
  static override flags = {
    agent: Flags.string({ char: 'a', description: 'The agent that sent the payload: claude-code, codex, gemini, cursor, hermes, aider (default: recognised from the payload)' }),
  };

  async run(): Promise<void> {
    let exitCode = 0;
    try {
      await this.parse(Hook);
      const result = await runHook(this.argv, { stdin: process.stdin, env: process.env });
      if (result.stderr) process.stderr.write(result.stderr);
      if (result.stdout) process.stdout.write(result.stdout);
      exitCode = result.exitCode;
    } catch {
      exitCode = 0;
    } finally {
      process.stdin.destroy();
    }
    process.exitCode = exitCode;
  }

  protected override async catch(): Promise<void> {
    // A hook must never block a tool call by accident (oclif's errors exit 2: the agent hook docs: exit 2 blocks a call).
    process.exitCode = 0;
  }
}
