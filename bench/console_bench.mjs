#!/usr/bin/env node
// Benchmark (not a test): the web console with 10,000 simulated GPUs.
// Generates a scenario of 1,250 nodes x 8 GPUs (NVIDIA, AMD, Intel; a third
// of the GPUs busy, some in memory contention), runs `gpufleet server
// --simulate` on it, and measures in headless chromium (playwright-core):
//   - the fleet page's first render: navigation start -> page rendered
//     (body[data-ready]), median of 5 cold loads, against the anchor of the
//     same run: fetching the fleet data it renders (the API answer) from Node;
//   - the contention map over 20 s: updates per second, the longest gap
//     between updates, the frame-time distribution (requestAnimationFrame
//     gaps over 50 ms count as dropped frames) and long tasks (> 50 ms).
// Prints the figures; docs/console.md quotes them.
//   node bench/console_bench.mjs --gpufleet build/src/cli/gpufleet [--gpus 10000]
//        [--serve-assets build/src/console/web-dist]
// --serve-assets: a gpufleet binary without the console (e.g. another
// branch's, with the JSON APIs) is measured behind a loopback proxy that
// serves the console's files from that folder.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { chromium } = createRequire(join(root, 'web', 'package.json'))('playwright-core');
const argv = process.argv;
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const gpufleet = opt('--gpufleet', join(root, 'build/src/cli/gpufleet'));
const gpus = Number(opt('--gpus', '10000'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function scenario(totalGpus) {
  const models = [['nvidia', 'h100-sxm', 'aws', 'us-east-1'], ['amd', 'mi300x', 'azure', 'eastus'],
                  ['intel', 'max-1550', 'onprem', 'dc-east']];
  let out = 'name = "bench-10k"\nseed = 7\ninterval_s = 10\n';
  const nodes = Math.ceil(totalGpus / 8);
  for (let n = 0; n < nodes; ++n) {
    const [, model, cloud, region] = models[n % 3];
    const count = Math.min(8, totalGpus - n * 8);
    out += `\n[[node]]\nname = "node-${n}"\ncloud = "${cloud}"\nregion = "${region}"\nzone = "${region}-a"\n` +
           `price_usd_per_gpu_hour = { on_demand = 4.0 }\ngpus = [{ model = "${model}", count = ${count} }]\n`;
    if (count >= 4) {
      const bw = (0.2 + 0.7 * ((n * 37) % 100) / 100).toFixed(2);
      const sm = (0.3 + 0.6 * ((n * 53) % 100) / 100).toFixed(2);
      out += `\n[[workload]]\nid = "job-${n}"\nteam = "team-${n % 7}"\nkind = "training"\nnode = "node-${n}"\n` +
             `gpus = [0, 1, 2]\nload = { sm_activity = ${sm}, memory_bandwidth = ${bw}, tensor_share = 0.5, memory_gib = 20 }\n`;
    }
    if (n % 50 === 0 && count >= 4) {
      out += `\n[[episode]]\nkind = "memory_contention"\nnode = "node-${n}"\ngpus = [3]\nstart_s = 0\nduration_s = 100000\nmagnitude = 0.7\n`;
    }
  }
  return out;
}

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// The console's size as served: every embedded file, gzip-compressed.
const dist = join(root, 'build/src/console/web-dist');
let raw = 0;
let zipped = 0;
for (const f of ['index.html', ...readdirSync(join(dist, 'assets')).map((x) => `assets/${x}`)]) {
  const b = readFileSync(join(dist, f));
  raw += b.length;
  zipped += gzipSync(b).length;
}
console.log(`console assets: ${(raw / 1024).toFixed(0)} KB, ${(zipped / 1024).toFixed(0)} KB gzip-compressed (budget 300 KB)`);

const tmp = mkdtempSync(join(tmpdir(), 'gpufleet_console_bench_'));
const scen = join(tmp, 'bench-10k.toml');
writeFileSync(scen, scenario(gpus));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const log = openSync(join(tmp, 'server.log'), 'a');
const assetsDir = opt('--serve-assets', '');
const server = spawn(gpufleet, ['server', '--listen', `127.0.0.1:${port}`, '--db', join(tmp, 'state.db'),
                                '--simulate', scen, '--speedup', '1'], { stdio: ['ignore', log, log] });
let browser;
let assetProxy;
let pageBase = base;
try {
  if (assetsDir) {
    assetProxy = http.createServer(async (req, res) => {
      const path = req.url === '/' ? 'index.html' : req.url.startsWith('/assets/') ? req.url.slice(1) : '';
      if (path) {
        try {
          const body = readFileSync(join(assetsDir, path.replace(/\.\./g, '')));
          const type = path.endsWith('.js') ? 'text/javascript' : path.endsWith('.css') ? 'text/css' : 'text/html';
          res.writeHead(200, { 'Content-Type': type });
          return res.end(body);
        } catch {
          res.writeHead(404);
          return res.end();
        }
      }
      const r = await fetch(base + req.url);
      res.writeHead(r.status, { 'Content-Type': r.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    const p = await freePort();
    await new Promise((r) => assetProxy.listen(p, '127.0.0.1', r));
    pageBase = `http://127.0.0.1:${p}`;
    console.log(`console files from ${assetsDir} through a loopback proxy`);
  }
  const t0 = Date.now();
  let fleetPath = '/api/v1/fleet';
  let count = 0;
  while (Date.now() - t0 < 180000) {
    await sleep(1000);
    try {
      const f = await fetch(base + fleetPath);
      if (f.status === 404 && fleetPath === '/api/v1/fleet') { fleetPath = '/api/v1/inventory'; continue; }
      if (!f.ok) continue;
      const j = await f.json();
      count = fleetPath.endsWith('fleet') ? j.devices.length : j.data.devices.length;
      if (count >= gpus) break;
    } catch { /* not up yet */ }
  }
  console.log(`fleet: ${count} devices via ${fleetPath} after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (count < gpus) throw new Error('the fleet did not come up; see ' + join(tmp, 'server.log'));
  // Anchor: the fleet data itself, fetched and parsed by Node (same run).
  const apiMs = [];
  for (let i = 0; i < 5; ++i) {
    const s = performance.now();
    await (await fetch(base + fleetPath)).json();
    apiMs.push(performance.now() - s);
  }
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'] });
  const renders = [];
  for (let i = 0; i < 5; ++i) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await ctx.newPage();
    await page.goto(`${pageBase}/#/fleet`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    renders.push(Number(await page.getAttribute('body', 'data-ready-at-ms')));
    await ctx.close();
  }
  const r = median(renders);
  const a = median(apiMs);
  console.log(`fleet page first render (navigation start -> rendered), median of 5: ${r.toFixed(0)} ms ` +
              `(runs ${renders.map((x) => x.toFixed(0)).join(', ')}); target < 1000 ms`);
  console.log(`anchor, fetching the fleet data (${fleetPath}) from Node, median of 5: ${a.toFixed(0)} ms; ` +
              `render / fetch = ${(r / a).toFixed(1)}x`);

  // Without /api/v1/fleet in this build, the map is measured through a
  // stand-in: a loopback proxy in front of the server that answers
  // /api/v1/fleet in the contract's shape from the inventory's 10,000
  // devices with derived (not measured) bandwidth and occupancy values.
  let mapBase = pageBase;
  let standIn;
  if (!fleetPath.endsWith('fleet')) {
    const inv = (await (await fetch(`${base}/api/v1/inventory`)).json()).data.devices;
    let tick = 0;
    const fleetJson = () => {
      ++tick;
      const devices = inv.map((d, i) => ({
        gpu_uuid: d.key, node: d.node, cloud: '', region: '', vendor: d.vendor, model: d.model, team: '', workload: '',
        up: true, up_reason: '', utilization: ((i * 13 + tick) % 100) / 100, memory_bandwidth: ((i * 37 + tick) % 100) / 100,
        occupancy: ((i * 53 + tick * 3) % 100) / 100, power_watts: null, memory_used_ratio: null, open_incidents: 0,
        last_seen: Date.now() / 1000 }));
      return JSON.stringify({ generated_at: Date.now() / 1000, window_s: 1800,
        counts: { devices: devices.length, up: devices.length, down: 0, stale: 0, by_vendor: {} }, devices });
    };
    standIn = http.createServer(async (req, res) => {
      if (req.url.startsWith('/api/v1/fleet')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(fleetJson());
      }
      const r = await fetch(base + req.url);
      const headers = {};
      for (const k of ['content-type', 'content-security-policy']) if (r.headers.get(k)) headers[k] = r.headers.get(k);
      res.writeHead(r.status, headers);
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    const p = await freePort();
    await new Promise((r) => standIn.listen(p, '127.0.0.1', r));
    mapBase = `http://127.0.0.1:${p}`;
    console.log('contention map: through a stand-in /api/v1/fleet (derived values; this build has no /api/v1/fleet)');
  }
  {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await ctx.newPage();
  await page.goto(`${mapBase}/#/contention`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('[data-scatter][data-updates="2"]', { timeout: 30000 });
  const m = await page.evaluate(async () => {
    const el = document.querySelector('[data-scatter]');
    const updates = [];
    const obs = new MutationObserver(() => updates.push(performance.now()));
    obs.observe(el, { attributes: true, attributeFilter: ['data-updates'] });
    let longTasks = 0;
    try {
      new PerformanceObserver((l) => { longTasks += l.getEntries().length; }).observe({ type: 'longtask', buffered: false });
    } catch { /* not supported */ }
    const gaps = [];
    let last = performance.now();
    const end = last + 20000;
    await new Promise((resolve) => {
      const frame = (t) => {
        gaps.push(t - last);
        last = t;
        if (t < end) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
    obs.disconnect();
    const ivals = updates.slice(1).map((t, i) => t - updates[i]);
    return { updates: updates.length, maxGapMs: Math.max(...ivals), frames: gaps.length,
             dropped: gaps.filter((g) => g > 50).length, worstFrameMs: Math.max(...gaps), longTasks,
             points: Number(el.dataset.points), drawMs: Number(el.dataset.drawMs), cycleMs: Number(el.dataset.cycleMs) };
  });
  console.log(`contention map over 20 s: ${m.points} points, ${(m.updates / 20).toFixed(2)} updates/s, ` +
              `longest gap between updates ${m.maxGapMs.toFixed(0)} ms; ${m.frames} frames, ${m.dropped} over 50 ms ` +
              `(worst ${m.worstFrameMs.toFixed(0)} ms), ${m.longTasks} long tasks; last draw ${m.drawMs} ms, ` +
              `last fetch+draw ${m.cycleMs} ms`);
  await ctx.close();
  if (standIn) standIn.close();
  }
} finally {
  if (browser) await browser.close();
  if (assetProxy) assetProxy.close();
  server.kill('SIGTERM');
  await sleep(500);
  try { console.error(readFileSync(join(tmp, 'server.log'), 'utf8').split('\n').slice(-3).join('\n')); } catch {}
  rmSync(tmp, { recursive: true, force: true });
}
