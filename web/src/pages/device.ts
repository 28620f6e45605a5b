// Device: one GPU's canonical series over a range (the server's window, or
// the long-term store for longer ranges), with its incidents drawn on the
// time axis and their thresholds on the metric they tripped.
import { api, errorText, FleetDevice, Incident, isMissing, loadFleet, SeriesAnswer } from '../api';
import { distinctLabels, lineChart } from '../chart';
import { clear, h, note, notAvailable, num, pct, time } from '../dom';
import { evidenceMetric, incidentSpan } from '../evidence';

const kMetrics = [
  'gpu_utilization_ratio', 'gpu_memory_bandwidth_utilization_ratio', 'gpu_sm_occupancy_ratio',
  'gpu_sm_active_ratio', 'gpu_power_watts', 'gpu_memory_used_bytes', 'gpu_temperature_celsius',
];
const kRanges = ['15m', '1h', '6h', '24h', '7d'];

// `id` is a fleet `device` ("node/uuid[/partition]"), as incidents list
// devices, or a bare gpu_uuid.
export async function devicePage(root: HTMLElement, id: string, params: URLSearchParams): Promise<void> {
  const range = kRanges.includes(params.get('range') ?? '') ? params.get('range')! : '15m';
  root.append(h('h1', {}, 'Device ', h('code', { text: id })));
  const head = h('div', { class: 'device-head' });
  root.append(head);
  let found: FleetDevice | undefined;
  try {
    const fleet = await loadFleet();
    found = fleet.devices.find((x) => x.device === id) ?? fleet.devices.find((x) => x.gpu_uuid === id);
    const d = found;
    if (!d) head.append(note(`no device ${id} in the fleet`, 'warn'));
    else {
      head.append(h('dl', { class: 'facts' },
        ...[['node', d.node], ['cloud', `${d.cloud} ${d.region}`], ['vendor', d.vendor], ['model', d.model],
            ['team', d.team || '–'], ['workload', d.workload || '–'],
            ['health', d.up === null ? 'unknown' : d.up ? 'up' : `down ${d.up_reason}`],
            ['utilization', pct(d.utilization)], ['memory bandwidth', pct(d.memory_bandwidth)],
            ['occupancy', pct(d.occupancy)], ['power', `${num(d.power_watts, 0)} W`], ['last seen', time(d.last_seen)]]
          .flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })])));
    }
  } catch (e) {
    head.append(note(errorText(e), 'error'));
  }
  // Series carry gpu_uuid (the part after the node in a device id).
  const uuid = found?.gpu_uuid ?? (id.includes('/') ? id.split('/')[1] : id);
  const keys = new Set([id, uuid, found?.device].filter((x): x is string => !!x));
  root.append(h('p', { class: 'ranges' }, 'Range: ', ...kRanges.map((r) =>
    h('a', { href: `#/device/${encodeURIComponent(id)}?range=${r}`, class: r === range ? 'current' : '', text: r }))));
  // The device's incidents, with evidence for their thresholds.
  let incidents: Incident[] = [];
  try {
    const list = await api<Incident[]>('/api/v1/incidents?limit=200');
    const mine = list.filter((i) => i.devices.some((d) => keys.has(d)) ||
                                    Object.values(i.subject).some((v) => keys.has(v))).slice(0, 10);
    incidents = await Promise.all(mine.map((i) => api<Incident>(`/api/v1/incidents/${i.id}`)));
  } catch (e) {
    root.append(note(`incidents: ${errorText(e)}`, 'error'));
  }
  if (incidents.length) {
    root.append(h('h2', { text: 'Incidents' }), h('ul', {}, ...incidents.map((i) =>
      h('li', {}, h('a', { href: `#/incidents/${i.id}`, text: `#${i.id} ${i.kind}` }), ` ${i.status}: ${i.summary}`))));
  }
  const charts = h('div', { class: 'charts' });
  root.append(h('h2', { text: 'Series' }), charts);
  for (const metric of kMetrics) {
    try {
      const s = await api<SeriesAnswer>(`/api/v1/series?metric=${metric}&gpu_uuid=${encodeURIComponent(uuid)}&from=-${range}`);
      const names = distinctLabels(s.series.map((x) => x.labels));
      const thresholds = incidents.flatMap((i) => (i.evidence ?? [])
        .filter((e) => evidenceMetric(e) === metric && e.threshold !== null)
        .map((e) => ({ value: e.threshold as number, label: `incident ${i.id}` })));
      charts.append(lineChart({
        title: `${metric} (${s.source}${s.partial ? ', partial' : ''})`, unit: s.unit,
        // One series per partition or sensor: the legend names what differs.
        series: s.series.map((x, i) => ({ label: `${metric} ${names[i]}`.trim(), t: x.t, v: x.v })),
        thresholds, spans: incidents.map(incidentSpan),
      }));
    } catch (e) {
      if (isMissing(e)) {
        clear(charts);
        charts.append(notAvailable('series (/api/v1/series)', e.message));
        return;
      }
      charts.append(note(`${metric}: ${errorText(e)}`, 'muted'));
    }
  }
}
