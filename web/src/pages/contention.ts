// Contention map: memory bandwidth utilization against SM occupancy per
// device, refreshed every second; the region the default memory-contention
// rule fires in (data/detect/default.toml: bandwidth > 0.85 with occupancy
// < 0.5) is shaded. A click opens the device. The fleet answer is fetched
// and parsed in a worker so the map keeps its frames at 10,000 devices.
import { ApiError, errorText, getToken } from '../api';
import { Scatter, ScatterPoint } from '../canvas';
import type { FleetPoints } from '../fleet_worker';
import { clear, h, note, notAvailable, pct } from '../dom';

const kBandwidthLimit = 0.85;
const kOccupancyLimit = 0.5;
const kPeriodMs = 1000;

export function contentionPage(root: HTMLElement): () => void {
  let stopped = false;
  let timer = 0;
  const scatter = new Scatter(kBandwidthLimit, kOccupancyLimit, (id) => {
    location.hash = `#/device/${encodeURIComponent(id)}`;
  });
  const status = h('p', { class: 'muted', id: 'contention-status' });
  const list = h('div', { class: 'in-region' });
  root.append(h('h1', { text: 'Contention map' }),
    h('p', { class: 'muted', text: `Each dot is a device (colour = vendor). Shaded: memory bandwidth above ` +
      `${pct(kBandwidthLimit)} while SM occupancy is below ${pct(kOccupancyLimit)}: warps starve on a ` +
      `saturated memory system, usually a DRAM-heavy neighbour. Refreshes every second; click a dot.` }),
    h('div', { class: 'legend' }, ...['nvidia', 'amd', 'intel'].map((v) => h('span', { class: `vendor ${v}`, text: v }))),
    scatter.el, status, list);
  let updates = 0;
  // The fleet answer is fetched and parsed in a worker (fleet_worker.ts).
  const workerUrl = document.querySelector('meta[name="gpufleet-fleet-worker"]')?.getAttribute('content') ?? '';
  const worker = new Worker(workerUrl);
  let started = 0;
  const schedule = () => {
    if (!stopped) timer = window.setTimeout(tick, Math.max(0, kPeriodMs - (performance.now() - started)));
  };
  worker.onmessage = (ev: MessageEvent<FleetPoints>) => {
    if (stopped) return;
    const f = ev.data;
    if (f.status !== 200) {
      status.textContent = '';
      clear(list);
      list.append(f.status === 404
        ? notAvailable('bandwidth and occupancy per device (/api/v1/fleet)', f.error ?? 'Not Found')
        : note(errorText(new ApiError(f.status, f.error ?? '')), 'error'));
      schedule();
      return;
    }
    const pts: ScatterPoint[] = f.ids.map((id, i) => ({
      id, x: f.x[i], y: f.y[i], vendor: f.vendors[i],
      title: () => `${id} (${f.models[i]}): bandwidth ${pct(f.x[i])}, occupancy ${pct(f.y[i])}`,
    }));
    const drawMs = scatter.redraw(pts);
    ++updates;
    scatter.el.dataset.updates = String(updates);
    scatter.el.dataset.cycleMs = (performance.now() - started).toFixed(1);
    status.textContent = `${pts.length} of ${f.total} devices with both values · ` +
      `update ${updates} · drawn in ${drawMs.toFixed(1)} ms`;
    clear(list);
    const hot = pts.filter((p) => p.x > kBandwidthLimit && p.y < kOccupancyLimit);
    list.append(h('h2', { text: `In the contention region: ${hot.length}` }),
      h('ul', {}, ...hot.slice(0, 50).map((p) =>
        h('li', {}, h('a', { href: `#/device/${encodeURIComponent(p.id)}`, text: p.title() })))));
    schedule();
  };
  const tick = () => {
    if (stopped) return;
    started = performance.now();
    worker.postMessage({ token: getToken() });
  };
  tick();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    worker.terminate();
  };
}
