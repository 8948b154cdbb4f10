import type { CanonicalTool } from '@cordon/plugin-api';

/** Cursor tool names and their canonical families (the Cursor hooks docs). */
const TOOLS: Readonly<Record<string, CanonicalTool>> = {
  Shell: 'shell',
  Read: 'read',
  Write: 'write',
  Delete: 'edit',
  StrReplace: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  WebFetch: 'web',
  WebSearch: 'web',
  Task: 'subagent',
};

/** Canonical family of a Cursor tool; `MCP:<tool>` is `mcp`, unknown names `other`. */
export function canonicalTool(toolName: string): CanonicalTool {
  if (toolName.startsWith('MCP:')) return 'mcp';
  return Object.hasOwn(TOOLS, toolName) ? TOOLS[toolName]! : 'other';
}
