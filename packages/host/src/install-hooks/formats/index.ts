import type { ConfigFormats } from '@cordon/plugin-api';
import { jsonDocument } from './json.js';
import { tomlDocument } from './toml.js';
import { yamlDocument } from './yaml.js';

/** The format-preserving editors lent to hook installers (`InstallContext.formats`). */
export const configFormats: ConfigFormats = Object.freeze({
  json: jsonDocument,
  yaml: yamlDocument,
  toml: tomlDocument,
});

export { jsonDocument, tomlDocument, yamlDocument };
