import type { CanonicalTool } from '@cordon/plugin-api';

/** Gemini CLI tool names and their canonical families (the Gemini CLI hooks reference). */
const TOOLS: Readonly<Record<string, CanonicalTool>> = {
  run_shell_command: 'shell',
  list_background_processes: 'shell',
  read_background_output: 'shell',
  read_file: 'read',
  read_many_files: 'read',
  write_file: 'write',
  replace: 'edit',
  edit: 'edit',
  glob: 'search',
  grep_search: 'search',
  search_file_content: 'search',
  list_directory: 'search',
  web_fetch: 'web',
  google_web_search: 'web',
  invoke_agent: 'subagent',
};

/** Canonical family of a Gemini CLI tool; `mcp_<server>_<tool>` is `mcp`, unknown names `other`. */
export function canonicalTool(toolName: string): CanonicalTool {
  if (Object.hasOwn(TOOLS, toolName)) return TOOLS[toolName]!;
  return toolName.startsWith('mcp_') ? 'mcp' : 'other';
}
