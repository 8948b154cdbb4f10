import type { CanonicalTool } from '@cordon/plugin-api';
import { patchHeaders, patchText } from './patch.js';

/**
 * Canonical family of a Codex tool as its hooks name it (the Codex hooks docs):
 * every shell tool (`exec_command`, `shell`, `shell_command`) arrives as `Bash`; `apply_patch`
 * is a write when the patch only adds files and an edit otherwise; MCP tools are `mcp__…`.
 */
export function canonicalTool(toolName: string, toolInput: Readonly<Record<string, unknown>>): CanonicalTool {
  if (toolName === 'Bash' || toolName === 'exec_command' || toolName === 'shell' || toolName === 'shell_command' || toolName === 'local_shell') return 'shell';
  if (toolName === 'apply_patch') {
    const headers = patchHeaders(patchText(toolInput));
    return headers.length > 0 && headers.every((h) => h.op === 'add') ? 'write' : 'edit';
  }
  if (toolName.startsWith('mcp__')) return 'mcp';
  if (toolName === 'web_search' || toolName === 'web_fetch') return 'web';
  if (toolName === 'view_image') return 'read';
  if (/^(spawn_agent|send_input|wait|close_agent)$/.test(toolName)) return 'subagent';
  return 'other';
}
