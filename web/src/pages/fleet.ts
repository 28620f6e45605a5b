// Fleet: every device by vendor / model / cloud / node with health, heat maps
// of utilization and memory bandwidth, and one canonical metric for every
// vendor on one chart in one unit.
import { api, deviceId, errorText, FleetDevice, isMissing, loadFleet, SchemaMetric, SeriesAnswer } from '../api';
import { heatMap } from '../canvas';
import { lineChart } from '../chart';
import { clear, h, kVendorColor, note, notAvailable, num, pct, time } from '../dom';

const kPageRows = 100;

function health(d: FleetDevice): HTMLElement {
  if (d.up === null) return h('span', { class: 'badge muted', text: 'unknown' });
  if (d.up) return h('span', { class: 'badge ok', text: 'up' });
  return h('span', { class: 'badge bad', text: `down${d.up_reason ? `: ${d.up_reason}` : ''}` });
}

// One row per vendor / model / cloud / node, 100 at a time.
function groupTable(devices: FleetDevice[]): HTMLElement {
  const groups = new Map<string, FleetDevice[]>();
  for (const d of devices) {
    const k = [d.vendor, d.model, d.cloud, d.node].join('\u0000');
    const g = groups.get(k);
    if (g) g.push(d);
    else groups.set(k, [d]);
  }
  const mean = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  const all = [...groups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const body = h('tbody');
  const info = h('span', { class: 'muted' });
  const more = h('button', { type: 'button', text: 'more groups' });
  let shown = 0;
  const addRows = () => {
    for (const [k, g] of all.slice(shown, shown + kPageRows)) {
      const [vendor, model, cloud, node] = k.split('\u0000');
      const up = g.filter((d) => d.up === true).length;
      const down = g.filter((d) => d.up === false).length;
      body.append(h('tr', {},
        h('td', {}, h('span', { class: `vendor ${vendor}`, text: vendor })), h('td', { text: model }),
        h('td', { text: cloud }), h('td', {}, h('a', { href: `#/fleet?node=${encodeURIComponent(node)}`, text: node })),
        h('td', { class: 'n', text: g.length }), h('td', { class: 'n', text: up }),
        h('td', { class: `n${down ? ' bad' : ''}`, text: down }),
        h('td', { class: 'n', text: pct(mean(g.map((d) => d.utilization))) }),
        h('td', { class: 'n', text: pct(mean(g.map((d) => d.memory_bandwidth))) })));
    }
    shown = Math.min(all.length, shown + kPageRows);
    more.hidden = shown >= all.length;
    info.textContent = `${shown} of ${all.length} groups`;
  };
  more.addEventListener('click', addRows);
  addRows();
  return h('div', {}, h('table', { class: 'grid', 'data-table': 'groups' },
    h('thead', {}, h('tr', {}, ...['vendor', 'model', 'cloud', 'node', 'GPUs', 'up', 'down',
                                    'mean util.', 'mean mem. bw'].map((t) => h('th', { text: t })))),
    body), info, ' ', more);
}

function deviceTable(devices: FleetDevice[]): HTMLElement {
  const box = h('div', { class: 'devices' });
  const filter = h('input', { type: 'search', placeholder: 'filter devices (any column)', 'aria-label': 'filter devices' });
  const body = h('tbody');
  const info = h('span', { class: 'muted' });
  let page = 0;
  const more = h('button', { type: 'button', text: 'more' });
  const render = () => {
    const q = filter.value.trim().toLowerCase();
    const rows = q ? devices.filter((d) => [deviceId(d), d.node, d.cloud, d.vendor, d.model, d.team,
                                            d.workload, d.up_reason].join(' ').toLowerCase().includes(q))
                   : devices;
    clear(body);
    const shown = rows.slice(0, (page + 1) * kPageRows);
    for (const d of shown) {
      body.append(h('tr', {},
        h('td', {}, h('a', { href: `#/device/${encodeURIComponent(deviceId(d))}`, text: deviceId(d) })),
        h('td', { text: d.node }), h('td', { text: d.cloud }),
        h('td', {}, h('span', { class: `vendor ${d.vendor}`, text: d.vendor })), h('td', { text: d.model }),
        h('td', { text: d.team }), h('td', { text: d.workload }), h('td', {}, health(d)),
        h('td', { class: 'n', text: pct(d.utilization) }), h('td', { class: 'n', text: pct(d.memory_bandwidth) }),
        h('td', { class: 'n', text: pct(d.occupancy) }), h('td', { class: 'n', text: num(d.power_watts, 0) }),
        h('td', { class: 'n', text: pct(d.memory_used_ratio) }),
        h('td', { class: `n${d.open_incidents ? ' bad' : ''}`, text: d.open_incidents })));
    }
    info.textContent = `${shown.length} of ${rows.length} devices`;
    more.hidden = shown.length >= rows.length;
  };
  filter.addEventListener('input', () => { page = 0; render(); });
  more.addEventListener('click', () => { ++page; render(); });
  render();
  box.append(filter, ' ', info,
    h('table', { class: 'grid', 'data-table': 'devices' },
      h('thead', {}, h('tr', {}, ...['device', 'node', 'cloud', 'vendor', 'model', 'team', 'workload', 'health',
                                      'util.', 'mem. bw', 'occupancy', 'W', 'mem. used', 'incidents']
        .map((t) => h('th', { text: t })))),
      body),
    more);
  return box;
}

async function metricChart(box: HTMLElement, schema: SchemaMetric[], metric: string): Promise<void> {
  clear(box);
  const picker = h('select', { 'aria-label': 'metric', id: 'metric-picker' });
  for (const m of schema) picker.append(h('option', { value: m.name, text: `${m.name} (${m.unit})` }));
  picker.value = metric;
  picker.addEventListener('change', () => { void metricChart(box, schema, picker.value); });
  box.append(h('label', {}, 'Metric, every vendor in one unit: ', picker));
  try {
    const s = await api<SeriesAnswer>(`/api/v1/series?metric=${encodeURIComponent(metric)}&aggregate=vendor&from=-15m`);
    box.append(lineChart({
      title: `${metric} by vendor (${s.unit}, mean per vendor)`, unit: s.unit,
      series: s.series.map((x) => ({ label: x.labels.vendor ?? '?', t: x.t, v: x.v,
                                     color: kVendorColor[x.labels.vendor ?? ''] })),
    }));
    if (s.partial) box.append(note('partial: the range reaches beyond what the server holds', 'warn'));
  } catch (e) {
    box.append(isMissing(e) ? notAvailable('metric series (/api/v1/series)', e.message) : note(errorText(e), 'error'));
  }
}

export async function fleetPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const fleet = await loadFleet();
  let devices = fleet.devices;
  const filters = ['vendor', 'model', 'cloud', 'node', 'team'] as const;
  for (const k of filters) {
    const want = params.get(k);
    if (want) devices = devices.filter((d) => d[k] === want);
  }
  // Plain code-unit order: localeCompare costs ~100 ms at 10,000 devices.
  const key = (d: FleetDevice) => `${d.vendor}\u0000${d.model}\u0000${d.node}\u0000${deviceId(d)}`;
  const keyed = devices.map((d) => [key(d), d] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  devices = keyed.map((x) => x[1]);
  const c = fleet.counts;
  root.append(h('h1', { text: 'Fleet' }));
  if (!fleet.live) {
    root.append(notAvailable('live health and utilization (/api/v1/fleet)',
                             'showing the inventory: devices without their latest values'));
  }
  const card = (label: string, value: number | string, cls = '') =>
    h('div', { class: `card ${cls}` }, h('div', { class: 'big', text: value }), h('div', { class: 'muted', text: label }));
  root.append(h('div', { class: 'cards', 'data-counts': JSON.stringify(c) },
    card('devices', c.devices), card('up', fleet.live ? c.up : '–', 'ok'),
    card('down', fleet.live ? c.down : '–', c.down ? 'bad' : ''),
    card('stale', fleet.live ? c.stale : '–', c.stale ? 'warn' : ''),
    ...Object.entries(c.by_vendor).map(([v, n]) => card(v, n, `vendor-card ${v}`)),
    card('as of', time(fleet.generated_at), 'small')));
  const active = filters.filter((k) => params.get(k));
  if (active.length) {
    root.append(h('p', {}, `Filtered by ${active.map((k) => `${k} = ${params.get(k)}`).join(', ')} `,
                    h('a', { href: '#/fleet', text: '(show all)' })));
  }
  const pick = (id: string) => { location.hash = `#/device/${encodeURIComponent(id)}`; };
  const cell = (d: FleetDevice, v: number | null) => ({ id: deviceId(d), value: v,
    title: `${deviceId(d)} · ${d.model} · ${pct(v)}` });
  root.append(h('h2', { text: 'Utilization and memory bandwidth' }),
    h('div', { class: 'heatmaps' },
      heatMap('GPU utilization', devices.map((d) => cell(d, d.utilization)), pick),
      heatMap('memory bandwidth utilization', devices.map((d) => cell(d, d.memory_bandwidth)), pick)));
  const chartBox = h('div', { class: 'metric-chart' });
  root.append(h('h2', { text: 'One metric, every vendor' }), chartBox);
  root.append(h('h2', { text: 'By vendor, model, cloud and node' }), groupTable(devices));
  root.append(h('h2', { text: 'Devices' }), deviceTable(devices));
  // The chart loads after the page has rendered (it is not part of the first render).
  void (async () => {
    try {
      const schema = await api<{ metrics: SchemaMetric[] }>('/api/v1/schema');
      const ratio = schema.metrics.find((m) => m.name === 'gpu_utilization_ratio') ?? schema.metrics[0];
      await metricChart(chartBox, schema.metrics, ratio ? ratio.name : 'gpu_utilization_ratio');
    } catch (e) {
      chartBox.append(isMissing(e) ? notAvailable('metric picker (/api/v1/schema)', e.message) : note(errorText(e), 'error'));
    }
  })();
}
