// Time-series charts on uPlot. Each chart's container carries what it drew
// as data attributes (data-series, data-points: the non-null values in the
// uPlot instance's data), so the browser tests check data, not just a canvas.
import uPlot from 'uplot';
import { h, kPalette } from './dom';

export interface LineSeries { label: string; t: number[]; v: (number | null)[]; color?: string }
export interface LineChartOptions {
  title: string;
  unit: string;
  series: LineSeries[];
  thresholds?: { value: number; label: string }[];
  // Shaded time spans (unix s), e.g. a detector's window or an incident.
  spans?: { from: number; to: number; label: string }[];
  height?: number;
}

// Aligns the series on the union of their timestamps (null where absent).
function align(series: LineSeries[]): uPlot.AlignedData {
  const tables = series.map((s) => [s.t, s.v] as uPlot.AlignedData);
  if (tables.length === 1) return tables[0];
  return uPlot.join(tables);
}

const kUnitSymbol: Record<string, string> = {
  watts: 'W', celsius: '°C', seconds: 's', hertz: 'Hz', joules: 'J', bytes_per_second: 'B/s', volts: 'V',
};

// Labels that tell series apart (the ones whose values differ), for legends.
export function distinctLabels(labelSets: Record<string, string>[]): string[] {
  if (labelSets.length < 2) return labelSets.map(() => '');
  const keys = new Set(labelSets.flatMap((l) => Object.keys(l)));
  const differing = [...keys].filter((k) => new Set(labelSets.map((l) => l[k])).size > 1);
  return labelSets.map((l) => differing.map((k) => `${k}=${l[k] ?? ''}`).join(' '));
}

function unitValue(unit: string) {
  return (_u: uPlot, v: number | null): string => {
    if (v === null || v === undefined) return '–';
    if (unit === 'ratio') return `${(v * 100).toFixed(1)}%`;
    if (unit === 'bytes') return v >= 1 << 30 ? `${(v / (1 << 30)).toFixed(1)} GiB` : `${(v / (1 << 20)).toFixed(0)} MiB`;
    const short = kUnitSymbol[unit] ?? unit;
    return `${Number(v.toPrecision(4))}${short ? ` ${short}` : ''}`;
  };
}

export function lineChart(opts: LineChartOptions): HTMLElement {
  const box = h('div', { class: 'chart', 'data-chart': opts.title });
  const data = align(opts.series);
  let points = 0;
  for (let i = 1; i < data.length; ++i) {
    for (const v of data[i] as (number | null)[]) if (v !== null && v !== undefined) ++points;
  }
  box.dataset.series = String(opts.series.length);
  box.dataset.points = String(points);
  if (points === 0) {
    box.append(h('p', { class: 'note muted', text: `${opts.title}: no samples in this range` }));
    return box;
  }
  const thresholds = opts.thresholds ?? [];
  const spans = opts.spans ?? [];
  if (thresholds.length) box.dataset.thresholds = thresholds.map((t) => t.value).join(',');
  const fmt = unitValue(opts.unit);
  const draw = (u: uPlot) => {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    for (const s of spans) {
      const x0 = Math.max(left, u.valToPos(s.from, 'x', true));
      const x1 = Math.min(left + width, u.valToPos(s.to, 'x', true));
      if (x1 <= x0) continue;
      ctx.fillStyle = 'rgba(217, 138, 0, 0.15)';
      ctx.fillRect(x0, top, x1 - x0, height);
    }
    for (const t of thresholds) {
      const y = u.valToPos(t.value, 'y', true);
      if (y < top || y > top + height) continue;
      ctx.strokeStyle = '#c0392b';
      ctx.setLineDash([6, 4]);
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(left + width, y);
      ctx.stroke();
    }
    ctx.restore();
  };
  const yRange = (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => {
    let lo = min;
    let hi = max;
    for (const t of thresholds) {
      lo = Math.min(lo, t.value);
      hi = Math.max(hi, t.value);
    }
    if (opts.unit === 'ratio') return [0, Math.max(1, hi)];
    const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.1 || 1;
    return [lo - pad, hi + pad];
  };
  const xs = data[0] as number[];
  // Spans widen the time axis only where they overlap the data.
  const overlapping = spans.filter((s) => s.to >= xs[0] && s.from <= xs[xs.length - 1]);
  const spanMin = Math.min(xs[0], ...overlapping.map((s) => s.from));
  const spanMax = Math.max(xs[xs.length - 1], ...overlapping.map((s) => s.to));
  const options: uPlot.Options = {
    title: opts.title,
    width: 600,
    height: opts.height ?? 220,
    scales: {
      x: { time: true, range: (): uPlot.Range.MinMax => [spanMin, spanMax === spanMin ? spanMin + 1 : spanMax] },
      y: { range: yRange },
    },
    axes: [{}, { values: (u, vals) => vals.map((v) => fmt(u, v)), size: 80 }],
    series: [
      {},
      ...opts.series.map((s, i) => ({
        label: s.label,
        stroke: s.color ?? kPalette[i % kPalette.length],
        width: 1.5,
        spanGaps: false,
        value: fmt,
      })),
    ],
    hooks: { draw: [draw] },
  };
  // uPlot measures its container: build it once the box is in the document.
  requestAnimationFrame(() => {
    options.width = Math.max(320, box.clientWidth || 600);
    const u = new uPlot(options, data, box);
    box.dataset.rendered = String(u.data[0].length);
  });
  return box;
}
