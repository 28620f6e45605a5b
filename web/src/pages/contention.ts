// Contention map: memory bandwidth utilization against SM occupancy per
// device, refreshed every second; the region the default memory-contention
// rule fires in (data/detect/default.toml: bandwidth > 0.85 with occupancy
// < 0.5) is shaded. A click opens the device.
import { deviceId, errorText, FleetDevice, loadFleet } from '../api';
import { Scatter } from '../canvas';
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
  const tick = async () => {
    if (stopped) return;
    const started = performance.now();
    try {
      const fleet = await loadFleet();
      if (stopped) return;
      if (!fleet.live) {
        clear(list);
        list.append(notAvailable('bandwidth and occupancy per device (/api/v1/fleet)', 'the map needs live values'));
      }
      const pts = fleet.devices
        .filter((d): d is FleetDevice & { memory_bandwidth: number; occupancy: number } =>
          d.memory_bandwidth !== null && d.occupancy !== null)
        .map((d) => ({ id: deviceId(d), x: d.memory_bandwidth, y: d.occupancy, vendor: d.vendor,
                       title: () => `${deviceId(d)} (${d.model}): bandwidth ${pct(d.memory_bandwidth)}, occupancy ${pct(d.occupancy)}` }));
      const drawMs = scatter.redraw(pts);
      ++updates;
      scatter.el.dataset.updates = String(updates);
      scatter.el.dataset.cycleMs = (performance.now() - started).toFixed(1);
      status.textContent = `${pts.length} of ${fleet.devices.length} devices with both values · ` +
        `update ${updates} · drawn in ${drawMs.toFixed(1)} ms`;
      if (fleet.live) {
        clear(list);
        const hot = pts.filter((p) => p.x > kBandwidthLimit && p.y < kOccupancyLimit);
        list.append(h('h2', { text: `In the contention region: ${hot.length}` }),
          h('ul', {}, ...hot.slice(0, 50).map((p) =>
            h('li', {}, h('a', { href: `#/device/${encodeURIComponent(p.id)}`, text: p.title() })))));
      }
    } catch (e) {
      status.textContent = '';
      clear(list);
      list.append(note(errorText(e), 'error'));
    }
    if (!stopped) timer = window.setTimeout(() => { void tick(); }, Math.max(0, kPeriodMs - (performance.now() - started)));
  };
  void tick();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}
