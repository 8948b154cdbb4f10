/**
 * `JSON.stringify` of a value with every object's keys sorted by UTF-16 code unit, no
 * whitespace, written without recursion, so a value nested any depth deep is written: an agent's
 * tool input is what the model wrote, and a model can nest it past V8's stack (`JSON.parse`
 * takes 200,000 levels; a recursive walk and `JSON.stringify` itself end near 5,000 with a
 * RangeError, which once made the hook drop a Gemini call's live-envelope decision).
 *
 * What it writes, for data as `JSON.parse` returns it, is exactly `JSON.stringify` of a copy
 * whose keys were inserted in sorted order, which is the key order of the files and hashes
 * written before it: keys that are array indices (`"0"`, `"17"`) first in numeric order, as
 * every JavaScript object enumerates them (ECMA-262 OrdinaryOwnPropertyKeys), then the others
 * by code unit. Strings and finite numbers as `JSON.stringify` writes them; an object
 * property whose value is `undefined`, a function or a symbol is left out, and such an array
 * element is `null`; `toJSON` is not called (objects are read as plain data: own enumerable
 * string keys). A non-finite number is `null`, or with `nonFinite: 'throw'` a TypeError. A value
 * that holds itself throws a TypeError; a bigint throws the TypeError `JSON.stringify` throws.
 * Returns `undefined` when the value itself is one `JSON.stringify` leaves out (undefined, a
 * function, a symbol).
 */
export function sortedJson(value: unknown, options: { readonly nonFinite?: 'null' | 'throw' } = {}): string | undefined {
  const throwNonFinite = options.nonFinite === 'throw';
  const scalar = (v: unknown): string | undefined => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      if (throwNonFinite) throw new TypeError(`canonical JSON cannot hold ${v}`);
      return 'null';
    }
    return JSON.stringify(v) as string | undefined;
  };
  if (value === null || typeof value !== 'object') return scalar(value);

  // One frame per open array or object on the path from the root.
  interface Frame {
    readonly node: object;
    readonly keys: readonly string[] | undefined; // undefined for an array
    next: number;
    wrote: boolean;
  }
  const out: string[] = [];
  const onPath = new Set<object>();
  const stack: Frame[] = [];
  const open = (node: object): void => {
    // An array of strings (an audit's changed_files: one per changed path) is written whole.
    if (Array.isArray(node) && node.every((item) => typeof item === 'string')) {
      out.push(JSON.stringify(node));
      return;
    }
    if (onPath.has(node)) throw new TypeError('Converting circular structure to JSON');
    onPath.add(node);
    const isArray = Array.isArray(node);
    out.push(isArray ? '[' : '{');
    stack.push({ node, keys: isArray ? undefined : orderedKeys(node), next: 0, wrote: false });
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.keys === undefined) {
      const array = frame.node as unknown[];
      if (frame.next >= array.length) {
        out.push(']');
        onPath.delete(frame.node);
        stack.pop();
        continue;
      }
      const item = array[frame.next++];
      if (frame.wrote) out.push(',');
      frame.wrote = true;
      if (item !== null && typeof item === 'object') open(item);
      else out.push(scalar(item) ?? 'null');
    } else {
      if (frame.next >= frame.keys.length) {
        out.push('}');
        onPath.delete(frame.node);
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.next++]!;
      const item = (frame.node as Record<string, unknown>)[key];
      const isObject = item !== null && typeof item === 'object';
      const text = isObject ? '' : scalar(item);
      if (!isObject && text === undefined) continue; // left out, as JSON.stringify does
      out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
      frame.wrote = true;
      if (isObject) open(item);
      else out.push(text!);
    }
  }
  return out.join('');
}

/** Whether `key` is an array index: the canonical decimal form of an integer below 2^32 - 1. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/** An object's own enumerable keys in the order a copy with keys inserted sorted enumerates them. */
function orderedKeys(node: object): string[] {
  const keys = Object.keys(node).sort();
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((key) => !isArrayIndex(key))];
}
