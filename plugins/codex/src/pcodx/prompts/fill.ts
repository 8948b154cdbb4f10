import { PROMPT_FRAGMENTS, type PromptName } from './fragments.js';

/** Every `{{NAME}}` placeholder in `text`, in order of first appearance. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((m) => m[1]!))];
}

/**
 * Fills a fragment's placeholders. Throws when a placeholder has no value or a value names no
 * placeholder, so a typo can never ship a prompt with a literal `{{…}}` in it. Values are
 * inserted as they are (no escaping); `{{…}}` inside a value is not expanded again.
 */
export function fillPrompt(name: PromptName, values: Readonly<Record<string, string>> = {}): string {
  const text = PROMPT_FRAGMENTS[name];
  const wanted = placeholders(text);
  const missing = wanted.filter((p) => !(p in values));
  if (missing.length) throw new Error(`prompt ${name} needs ${missing.map((p) => `{{${p}}}`).join(', ')}`);
  const extra = Object.keys(values).filter((k) => !wanted.includes(k));
  if (extra.length) throw new Error(`prompt ${name} has no placeholder ${extra.map((p) => `{{${p}}}`).join(', ')}`);
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (_, key: string) => values[key]!);
}

/** True when `name` is one of {@link PROMPT_FRAGMENTS}. */
export function isPromptName(name: string): name is PromptName {
  return Object.hasOwn(PROMPT_FRAGMENTS, name);
}

/** The instruction pointer, trimmed, as it goes into `{{INSTRUCTION_POINTER}}`. */
export function instructionPointer(): string {
  return PROMPT_FRAGMENTS['partial-compact-instruction-pointer.md'].trim();
}
