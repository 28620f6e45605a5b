// Bundles the console (src/main.ts and the CSS it imports, and the worker
// src/fleet_worker.ts whose name index.html carries in a meta tag) with esbuild into
// OUTDIR/assets/ under content-hashed names, and writes OUTDIR/index.html
// from index.html with those names filled in. Reads nothing from the network.
//   node build.mjs [--outdir DIR]      (default: dist)
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf('--outdir');
const outdir = at >= 0 && args[at + 1] ? args[at + 1] : join(here, 'dist');

rmSync(join(outdir, 'assets'), { recursive: true, force: true });
mkdirSync(join(outdir, 'assets'), { recursive: true });
const result = await build({
  entryPoints: { console: join(here, 'src/main.ts'), 'fleet-worker': join(here, 'src/fleet_worker.ts') },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  outdir: join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
let js = '';
let css = '';
let worker = '';
for (const out of Object.keys(result.metafile.outputs)) {
  const name = basename(out);
  if (name.startsWith('console-') && name.endsWith('.js')) js = name;
  if (name.startsWith('console-') && name.endsWith('.css')) css = name;
  if (name.startsWith('fleet-worker-') && name.endsWith('.js')) worker = name;
}
if (!js || !css || !worker) throw new Error(`build.mjs: esbuild wrote no JS, CSS or worker (${js}, ${css}, ${worker})`);
const html = readFileSync(join(here, 'index.html'), 'utf8')
  .replace('{{CSS}}', `/assets/${css}`)
  .replace('{{JS}}', `/assets/${js}`)
  .replace('{{WORKER}}', `/assets/${worker}`);
writeFileSync(join(outdir, 'index.html'), html);
console.log(`console: ${js}, ${css}, ${worker}, index.html -> ${outdir}`);
