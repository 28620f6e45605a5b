#!/usr/bin/env node
// E2E: the console beyond loopback, in a real browser. Starts `gpufleet
// server` listening on 0.0.0.0 with TLS (the test certificate of
// tests/data/tls, for localhost / 127.0.0.1) and an admin and a read-only
// token, on the simulated fleet, and drives Debian's headless chromium
// (playwright-core from web/node_modules) to https://127.0.0.1:PORT/:
//   - chromium accepts the server's certificate only because the test pins
//     its public key (--ignore-certificate-errors-spki-list), as a browser
//     that trusts the test CA would;
//   - the console's assets load without a token (they hold no data), but
//     the fleet API answers the token-less page 401 and the page shows no
//     device;
//   - with the read-only token in the token box the fleet page shows every
//     device with live values, and a write from the page (ack) is refused 403;
//   - plain http to the same port gets no answer.
// A screenshot of each state goes to --screenshots DIR.
//   node console_tls_browser_test.mjs --gpufleet BIN --source-dir DIR --screenshots DIR
import { spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || !process.argv[i + 1]) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
}
const gpufleet = arg('--gpufleet');
const sourceDir = resolve(arg('--source-dir'));
const shots = arg('--screenshots');
mkdirSync(shots, { recursive: true });
const { chromium } = createRequire(join(sourceDir, 'web', 'package.json'))('playwright-core');
const tls = join(sourceDir, 'tests', 'data', 'tls');
const kAdmin = 'tls-browser-admin-token';
const kReader = 'tls-browser-read-token';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function check(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}
async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// base64(sha256(SubjectPublicKeyInfo)): what Chromium's SPKI pin list takes.
const cert = new X509Certificate(readFileSync(join(tls, 'server.pem')));
const spki = createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');

const tmp = mkdtempSync(join(tmpdir(), 'gpufleet_console_tls_'));
const port = await freePort();
const base = `https://127.0.0.1:${port}`;
const logPath = join(tmp, 'server.log');
const log = openSync(logPath, 'a');
const server = spawn(gpufleet, ['server', '--listen', `0.0.0.0:${port}`, '--db', join(tmp, 'state.db'),
                                '--tls-cert', join(tls, 'server.pem'), '--tls-key', join(tls, 'server.key'),
                                '--token', kAdmin, '--read-token', kReader,
                                '--simulate', 'default', '--speedup', '30'],
                     { stdio: ['ignore', log, log] });
let context;
let failed = false;
try {
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium', headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           `--ignore-certificate-errors-spki-list=${spki}`],
  });
  const page = context.pages()[0] ?? await context.newPage();
  const statuses = [];
  page.on('response', (r) => statuses.push([new URL(r.url()).pathname, r.status()]));
  const started = Date.now();
  for (;;) {
    try {
      const r = await page.goto(`${base}/-/ready`);
      if (r && r.ok()) break;
    } catch {}
    check(Date.now() - started < 30000, 'server ready over https within 30 s');
    await sleep(300);
  }
  // Plain http to the TLS port: no answer a browser could use.
  const plain = await fetch(`http://127.0.0.1:${port}/api/v1/fleet`, { signal: AbortSignal.timeout(5000) })
    .then((r) => r.status, () => 'refused');
  check(plain === 'refused' || plain >= 400, `plain http to the TLS port: ${plain}`);

  // No token: the page loads, the data does not.
  statuses.length = 0;
  await page.goto(`${base}/#/fleet`);
  await page.waitForSelector('body[data-page][data-ready="1"]', { timeout: 15000 });
  const assets = statuses.filter(([p]) => p === '/' || p.startsWith('/assets/'));
  check(assets.length >= 2 && assets.every(([, s]) => s === 200), `assets open: ${JSON.stringify(assets)}`);
  const refused = statuses.filter(([p, s]) => p.startsWith('/api/') && s === 401);
  check(refused.length > 0, `reads refused without a token: ${JSON.stringify(statuses)}`);
  check(!statuses.some(([p, s]) => p.startsWith('/api/') && s === 200), 'no API read succeeded without a token');
  const cellsBefore = await page.$$eval('[data-heatmap]', (els) => els.map((e) => +e.dataset.valued || 0));
  check(cellsBefore.every((n) => n === 0), `no live values without a token: ${cellsBefore}`);
  await page.screenshot({ path: join(shots, 'tls-no-token.png'), fullPage: true });

  // The read-only token from the token box: every device with live values.
  await page.fill('#token-input', kReader);
  await page.click('#token-form button[type="submit"]');
  let cells = [];
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    await page.goto(`${base}/#/fleet`);
    await page.reload();
    await page.waitForSelector('body[data-page][data-ready="1"]', { timeout: 15000 });
    cells = await page.$$eval('[data-heatmap]', (els) => els.map((e) => [+e.dataset.cells, +e.dataset.valued]));
    if (cells.length === 2 && cells[0][0] >= 20 && cells[0][1] > 0) break;
    await sleep(1000);
  }
  check(cells.length === 2 && cells[0][0] >= 20 && cells[0][1] > 0, `fleet with the read token: ${JSON.stringify(cells)}`);
  await page.screenshot({ path: join(shots, 'tls-read-token.png'), fullPage: true });

  // A write from the page with the read-only token: 403.
  const write = await page.evaluate(async () => (await fetch('/api/v1/admin/detect', {
    method: 'POST', headers: { Authorization: `Bearer ${sessionStorage.getItem('gpufleet.token')}` } })).status);
  check(write === 403, `a write with the read token: ${write}`);
  console.log(`console TLS browser e2e: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  failed = true;
  console.error(e.stack ?? String(e));
  try {
    console.error(readFileSync(logPath, 'utf8').slice(-3000));
  } catch {}
} finally {
  if (context) await context.close().catch(() => {});
  server.kill('SIGTERM');
  await new Promise((r) => { const t = setTimeout(() => { server.kill('SIGKILL'); r(); }, 10000); server.on('exit', () => { clearTimeout(t); r(); }); });
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
