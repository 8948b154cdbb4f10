// JSON that cordon prints (`--json`, `--jsonl`, `--format json`): the plugin API's rule, so
// plugins that print JSON themselves write the same text.
export { shownJson } from '@cordon/plugin-api';
