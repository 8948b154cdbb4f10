import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeModule } from './builtins.js';

/**
 * better-sqlite3's compiled addon, for its `nativeBinding` option: one built for this Node's ABI
 * under `lib/binding/`, else the path where an install builds it (`build/`, `build/Debug/` or
 * `build/Release/` of the package, the order its `bindings` package tries first), else the addon
 * as `bindings` finds it from the package's own root. Handing it over skips `bindings`' search
 * from the caller's file (a stack-trace parse and a dozen stats, some 15 ms of a small `cordon
 * reduce`), and that search cannot succeed from the fast routes' bundles, which inline
 * better-sqlite3's JavaScript (`cordon reduce`, `cordon pcodx show`). `undefined` when
 * better-sqlite3 cannot be resolved: it then searches as usual (and its error is reported).
 */
export function sqliteNativeBinding(): string | object | undefined {
  let root: string;
  try {
    root = dirname(nodeModule().createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  } catch {
    return undefined;
  }
  // An addon built for this Node's ABI (`lib/binding/node-v<ABI>-<platform>-<arch>`, where
  // `bindings` also looks, and where scripts/install-node.sh puts one per tested Node) wins.
  const own = `lib/binding/node-v${process.versions.modules}-${process.platform}-${process.arch}`;
  for (const dir of [own, 'build', 'build/Debug', 'build/Release']) {
    const file = join(root, dir, 'better_sqlite3.node');
    if (existsSync(file)) return file;
  }
  try {
    const bindings = nodeModule().createRequire(join(root, 'package.json'))('bindings') as (options: { bindings: string; module_root: string }) => object;
    return bindings({ bindings: 'better_sqlite3.node', module_root: root });
  } catch {
    return undefined;
  }
}
