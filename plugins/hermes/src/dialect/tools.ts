import type { CanonicalTool } from '@cordon/plugin-api';

/** Hermes Agent tool names and their canonical families (the Hermes hooks docs). */
const TOOLS: Readonly<Record<string, CanonicalTool>> = {
  terminal: 'shell',
  process: 'shell',
  execute_code: 'shell',
  read_file: 'read',
  write_file: 'write',
  patch: 'edit',
  search_files: 'search',
  web_search: 'web',
  web_extract: 'web',
  delegate_task: 'subagent',
};

/** Canonical family of a Hermes tool; browser tools are `web`, unknown names `other`. */
export function canonicalTool(toolName: string): CanonicalTool {
  if (Object.hasOwn(TOOLS, toolName)) return TOOLS[toolName]!;
  if (toolName.startsWith('browser_')) return 'web';
  if (toolName.startsWith('mcp_')) return 'mcp';
  return 'other';
}
