import type { CanonicalTool } from '@cordon/plugin-api';

/** Claude Code tool names and their canonical families (the Claude Code hooks reference). */
const TOOLS: Readonly<Record<string, CanonicalTool>> = {
  Bash: 'shell',
  BashOutput: 'shell',
  KillShell: 'shell',
  Read: 'read',
  Write: 'write',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  WebFetch: 'web',
  WebSearch: 'web',
  Agent: 'subagent',
  Task: 'subagent',
};

/** Canonical family of a Claude Code tool; `mcp__<server>__<tool>` is `mcp`, unknown names `other`. */
export function canonicalTool(toolName: string): CanonicalTool {
  if (toolName.startsWith('mcp__')) return 'mcp';
  return Object.hasOwn(TOOLS, toolName) ? TOOLS[toolName]! : 'other';
}
