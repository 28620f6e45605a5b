// Contention map: memory bandwidth utilization against SM occupancy per
// device, refreshed every second; the region the server's memory-contention
// rule fires in (the fleet answer's contention_region, from the detect
// configuration it runs: bandwidth > 0.85 with occupancy < 0.5 by default)
// is shaded. A click opens the device. The fleet answer is fetched and
// parsed in a worker so the map keeps its frames at 10,000 devices.
import { ApiError, errorText, getToken } from '../api';
import { Scatter, ScatterPoint } from '../canvas';
import type { ContentionRegion, FleetPoints } from '../fleet_worker';
import { clear, h, note, notAvailable, pct } from '../dom';

const kPeriodMs = 1000;

function regionText(r: ContentionRegion | null): string {
  if (!r) return 'The server runs no rule of the bandwidth-and-occupancy shape, so no region is shaded.';
  return `Shaded: where the server's ${r.rule} rule fires, memory bandwidth above ` +
    `${pct(r.bandwidth_above)} while SM occupancy is below ${pct(r.occupancy_below)}: warps starve on a ` +
    'saturated memory system, usually a DRAM-heavy neighbour.';
}

export function contentionPage(root: HTMLElement): () => void {
  let stopped = false;
  let timer = 0;
  const scatter = new Scatter((id) => {
    location.hash = `#/device/${encodeURIComponent(id)}`;
  });
  const status = h('p', { class: 'muted', id: 'contention-status' });
  const list = h('div', { class: 'in-region' });
  const explain = h('p', { class: 'muted', id: 'contention-region' });
  root.append(h('h1', { text: 'Contention map' }),
    h('p', { class: 'muted', text: 'Each dot is a device (colour = vendor). Refreshes every second; click a dot.' }),
    explain,
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
    scatter.setRegion(f.region ? { x: f.region.bandwidth_above, y: f.region.occupancy_below } : null);
    explain.textContent = regionText(f.region);
    explain.dataset.rule = f.region?.rule ?? '';
    const drawMs = scatter.redraw(pts);
    ++updates;
    scatter.el.dataset.updates = String(updates);
    scatter.el.dataset.cycleMs = (performance.now() - started).toFixed(1);
    status.textContent = `${pts.length} of ${f.total} devices with both values · ` +
      `update ${updates} · drawn in ${drawMs.toFixed(1)} ms`;
    clear(list);
    const hot = pts.filter((p) => scatter.inRegion(p));
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
