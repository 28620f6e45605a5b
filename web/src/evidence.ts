// An incident's evidence as charts: the series that tripped, its threshold
// and the detector's window. Accepts the sample shapes the API may carry:
// samples {t: [], v: []}, samples [[t, v], ...], or t / v on the evidence.
import { Evidence, Incident } from './api';
import { lineChart } from './chart';
import { h, num } from './dom';

export function evidenceSamples(e: Evidence): { t: number[]; v: (number | null)[] } | null {
  const s = e.samples;
  if (Array.isArray(s)) return { t: s.map((p) => p[0]), v: s.map((p) => p[1]) };
  if (s && Array.isArray(s.t) && Array.isArray(s.v)) return s;
  if (Array.isArray(e.t) && Array.isArray(e.v)) return { t: e.t, v: e.v };
  return null;
}

// The metric name of an evidence series ("gpu_sm_occupancy_ratio{gpu=..}").
export function evidenceMetric(e: Evidence): string {
  const i = e.series.indexOf('{');
  return i >= 0 ? e.series.slice(0, i) : e.series;
}

export function incidentSpan(inc: Incident): { from: number; to: number; label: string } {
  const from = (inc.window_start_ns || inc.first_seen_ns) / 1e9;
  const to = (inc.window_end_ns || inc.last_seen_ns) / 1e9;
  return { from, to: Math.max(to, from), label: `incident ${inc.id}` };
}

export function evidenceView(inc: Incident, e: Evidence): HTMLElement {
  // Evidence that is a finding's text, not a series (contention_evidence):
  // no threshold, value or chart to show.
  if (!Array.isArray(e.samples) && e.samples?.source === 'not_a_series') {
    return h('div', { class: 'evidence', 'data-evidence': e.series, 'data-text-evidence': e.series },
      h('p', {}, h('code', { text: e.series }), ` ${e.detail || e.condition}`));
  }
  const box = h('div', { class: 'evidence', 'data-evidence': e.series },
    h('p', {}, h('code', { text: e.series }), ` ${e.condition} · threshold ${num(e.threshold, 3)} · ` +
      `value ${num(e.value, 3)}${e.detail ? ` · ${e.detail}` : ''}`));
  const samples = evidenceSamples(e);
  if (samples && samples.t.length === 0) {
    const why = !Array.isArray(e.samples) && e.samples?.note ? e.samples.note : 'none kept for this range';
    box.append(h('p', { class: 'note muted', 'data-no-samples': e.series, text: `no samples: ${why}` }));
    return box;
  }
  if (!samples) {
    box.append(h('p', { class: 'note warn', 'data-missing': 'evidence samples',
                        text: 'evidence samples: not available in this build (the incident stores the tripped value only)' }));
    return box;
  }
  const span = e.window ? { from: e.window.from, to: e.window.to, label: 'window' }
    : e.window_start !== undefined && e.window_end !== undefined
      ? { from: e.window_start, to: e.window_end, label: 'window' } : incidentSpan(inc);
  box.append(lineChart({
    title: evidenceMetric(e), unit: evidenceMetric(e).endsWith('_ratio') ? 'ratio' : '',
    series: [{ label: evidenceMetric(e), t: samples.t, v: samples.v }],
    thresholds: e.threshold !== null ? [{ value: e.threshold, label: 'threshold' }] : [],
    spans: [span],
  }));
  return box;
}
