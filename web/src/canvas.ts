// Canvas views that draw one mark per device and stay fast at 10,000 devices:
// a heat map (one cell per device) and the contention scatter. Both record
// what they drew as data attributes for the tests, and map clicks back to a
// device.
import { h, kVendorColor } from './dom';

export interface Cell { id: string; value: number | null; title: string }

// A value in 0-1 as a colour from pale (idle) to dark red (saturated).
function heat(v: number): string {
  const x = Math.max(0, Math.min(1, v));
  const r = Math.round(255 - 35 * x);
  const g = Math.round(245 - 200 * x);
  const b = Math.round(220 - 190 * x);
  return `rgb(${r},${g},${b})`;
}

function legend(): HTMLElement {
  const c = h('canvas', { class: 'heat-legend', width: 200, height: 10 });
  const ctx = c.getContext('2d');
  if (ctx) {
    for (let x = 0; x < 200; ++x) {
      ctx.fillStyle = heat(x / 199);
      ctx.fillRect(x, 0, 1, 10);
    }
  }
  return h('div', { class: 'heat-scale muted' }, '0% ', c, ' 100%');
}

export function heatMap(title: string, cells: Cell[], onPick: (id: string) => void): HTMLElement {
  const size = cells.length > 2000 ? 6 : cells.length > 400 ? 10 : 18;
  const cols = Math.max(1, Math.floor(900 / (size + 1)));
  const rows = Math.ceil(cells.length / cols);
  const canvas = h('canvas', { class: 'heat', width: cols * (size + 1), height: Math.max(1, rows * (size + 1)) });
  const ctx = canvas.getContext('2d');
  let valued = 0;
  if (ctx) {
    cells.forEach((c, i) => {
      const x = (i % cols) * (size + 1);
      const y = Math.floor(i / cols) * (size + 1);
      if (c.value === null) {
        ctx.fillStyle = '#d8d8d8';
      } else {
        ctx.fillStyle = heat(c.value);
        ++valued;
      }
      ctx.fillRect(x, y, size, size);
    });
  }
  const tip = h('div', { class: 'heat-tip muted', text: 'point at a cell; grey: no value' });
  const at = (ev: MouseEvent): Cell | undefined => {
    const r = canvas.getBoundingClientRect();
    const col = Math.floor((ev.clientX - r.left) / (size + 1));
    const row = Math.floor((ev.clientY - r.top) / (size + 1));
    return col < cols ? cells[row * cols + col] : undefined;
  };
  canvas.addEventListener('mousemove', (ev) => {
    const c = at(ev);
    tip.textContent = c ? c.title : '';
  });
  canvas.addEventListener('click', (ev) => {
    const c = at(ev);
    if (c) onPick(c.id);
  });
  const box = h('figure', { class: 'heatmap', 'data-heatmap': title }, h('figcaption', { text: title }),
                canvas, legend(), tip);
  box.dataset.cells = String(cells.length);
  box.dataset.valued = String(valued);
  return box;
}

// `title` is built only when the user points at the dot (10,000 strings a
// second would cost the map its frame budget).
export interface ScatterPoint { id: string; x: number; y: number; vendor: string; title: () => string }

// Bandwidth utilization (x) against SM occupancy (y), both 0-1, with the
// contention region (x > xLimit, y < yLimit) shaded. redraw() replaces the
// points; returns how long drawing took in ms.
export class Scatter {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private points: ScatterPoint[] = [];
  private readonly w = 640;
  private readonly hgt = 480;
  private readonly pad = 56;

  // The region's corner; null = no region (no such rule configured).
  private region: { x: number; y: number } | null = null;

  constructor(onPick: (id: string) => void) {
    this.canvas = h('canvas', { class: 'scatter', width: this.w, height: this.hgt });
    this.el = h('div', { class: 'scatter-box', 'data-scatter': 'contention' }, this.canvas);
    this.canvas.addEventListener('click', (ev) => {
      const p = this.nearest(ev);
      if (p) onPick(p.id);
    });
    this.canvas.addEventListener('mousemove', (ev) => {
      const p = this.nearest(ev);
      this.canvas.title = p ? p.title() : '';
    });
  }

  private px(x: number): number { return this.pad + x * (this.w - 2 * this.pad); }
  private py(y: number): number { return this.hgt - this.pad - y * (this.hgt - 2 * this.pad); }

  private nearest(ev: MouseEvent): ScatterPoint | undefined {
    const r = this.canvas.getBoundingClientRect();
    const sx = this.w / r.width;
    const mx = (ev.clientX - r.left) * sx;
    const my = (ev.clientY - r.top) * sx;
    let best: ScatterPoint | undefined;
    let bestD = 10 * 10;
    for (const p of this.points) {
      const d = (this.px(p.x) - mx) ** 2 + (this.py(p.y) - my) ** 2;
      if (d < bestD) {
        bestD = d;
        best = p;
      }
    }
    return best;
  }

  setRegion(region: { x: number; y: number } | null): void { this.region = region; }

  inRegion(p: { x: number; y: number }): boolean {
    return this.region !== null && p.x > this.region.x && p.y < this.region.y;
  }

  redraw(points: ScatterPoint[]): number {
    const t0 = performance.now();
    this.points = points;
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return 0;
    const { w, hgt, pad } = this;
    ctx.clearRect(0, 0, w, hgt);
    const r = this.region;
    ctx.font = '12px sans-serif';
    if (r) {
      ctx.fillStyle = 'rgba(192, 57, 43, 0.12)';
      ctx.fillRect(this.px(r.x), this.py(r.y), this.px(1) - this.px(r.x), this.py(0) - this.py(r.y));
      ctx.fillStyle = '#c0392b';
      ctx.fillText('contention', this.px(r.x) + 4, this.py(r.y) + 14);
    }
    ctx.strokeStyle = '#888';
    ctx.lineWidth = 1;
    ctx.strokeRect(pad, pad, w - 2 * pad, hgt - 2 * pad);
    ctx.fillStyle = '#444';
    for (let i = 0; i <= 4; ++i) {
      const v = i / 4;
      ctx.fillText(`${v * 100}%`, this.px(v) - 10, hgt - pad + 16);
      ctx.fillText(`${v * 100}%`, pad - 36, this.py(v) + 4);
    }
    ctx.fillText('memory bandwidth utilization →', w / 2 - 80, hgt - 10);
    ctx.save();
    ctx.translate(14, hgt / 2 + 45);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText('SM occupancy →', 0, 0);
    ctx.restore();
    let inRegion = 0;
    for (const p of points) {
      ctx.fillStyle = kVendorColor[p.vendor] ?? '#555';
      ctx.beginPath();
      ctx.arc(this.px(p.x), this.py(p.y), 4, 0, 2 * Math.PI);
      ctx.fill();
      if (r && p.x > r.x && p.y < r.y) ++inRegion;
    }
    this.el.dataset.points = String(points.length);
    this.el.dataset.inRegion = String(inRegion);
    const ms = performance.now() - t0;
    this.el.dataset.drawMs = ms.toFixed(2);
    return ms;
  }
}
