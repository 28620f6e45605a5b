// Bundles the console (src/main.ts and the CSS it imports) with esbuild into
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
  entryPoints: [join(here, 'src/main.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  outdir: join(outdir, 'assets'),
  entryNames: 'console-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
let js = '';
let css = '';
for (const out of Object.keys(result.metafile.outputs)) {
  if (out.endsWith('.js')) js = basename(out);
  if (out.endsWith('.css')) css = basename(out);
}
if (!js || !css) throw new Error(`build.mjs: esbuild wrote no JS or CSS (${js}, ${css})`);
const html = readFileSync(join(here, 'index.html'), 'utf8')
  .replace('{{CSS}}', `/assets/${css}`)
  .replace('{{JS}}', `/assets/${js}`);
writeFileSync(join(outdir, 'index.html'), html);
console.log(`console: ${js}, ${css}, index.html -> ${outdir}`);
