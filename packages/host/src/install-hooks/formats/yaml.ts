import type { ConfigDocument } from '@cordon/plugin-api';
import { isSeq, parseDocument } from 'yaml';
import { unparseable } from './unparseable.js';

/**
 * A YAML document edited through the `yaml` library's document model, which keeps comments,
 * key order and quoting of untouched nodes (whitespace before a trailing comment is normalised
 * to one space when the file is rewritten). A file that is never edited is returned as it was.
 * A missing or blank file starts as an empty mapping; a file with YAML errors, or whose root is
 * not a mapping, is refused (`CORDON_CONFIG_UNPARSEABLE`).
 */
export function yamlDocument(path: string, text: string | undefined): ConfigDocument {
  const original = text ?? '';
  const doc = parseDocument(original);
  const first = doc.errors[0];
  if (first) throw unparseable(path, 'YAML', first.message.split('\n')[0]!);
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  const root = doc.toJS();
  if (!root || typeof root !== 'object' || Array.isArray(root)) throw unparseable(path, 'YAML', 'the top level is not a mapping');
  let edited = false;
  return {
    get value() {
      return doc.toJS();
    },
    set: (p, v) => {
      doc.setIn([...p], doc.createNode(v));
      edited = true;
    },
    append: (p, item) => {
      if (isSeq(doc.getIn([...p], true))) doc.addIn([...p], doc.createNode(item));
      else doc.setIn([...p], doc.createNode([item]));
      edited = true;
    },
    remove: (p) => {
      if (doc.hasIn([...p])) {
        doc.deleteIn([...p]);
        edited = true;
      }
    },
    toString: () => (edited ? doc.toString() : original),
  };
}
