import { build } from 'esbuild';
const r = await build({
  entryPoints: ['dist/hot/main.js'], bundle: true, platform: 'node', format: 'cjs', target: 'node20',
  outfile: 'dist/hot/proto-hook.cjs', define: { 'import.meta.url': '__cordonUrl' },
  banner: { js: 'const __cordonUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning', metafile: true, external: ['kysely','better-sqlite3'],
});
const out = Object.values(r.metafile.outputs)[0];
console.log(Object.entries(out.inputs).map(([k,v])=>[k,v.bytesInOutput]).sort((a,b)=>b[1]-a[1]).slice(0,40).map(x=>x.join(' ')).join('\n'));
