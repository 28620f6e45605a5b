// A tiny element builder. It never writes a style attribute (the console's
// Content-Security-Policy has no 'unsafe-inline'): looks come from classes.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((ev: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {},
                                                         ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else if (k === 'text') el.textContent = String(v);
    else if (k === 'value' && 'value' in el) (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'object' ? c : String(c));
  }
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function note(text: string, kind: 'muted' | 'warn' | 'error' | 'ok' = 'muted'): HTMLElement {
  return h('p', { class: `note ${kind}`, text });
}

// The message a page shows where an API this build lacks would go.
export function notAvailable(what: string, message: string): HTMLElement {
  return h('p', { class: 'note warn', 'data-missing': what },
           `${what}: not available in this build (${message})`);
}

export function pct(r: number | null | undefined): string {
  return r === null || r === undefined || Number.isNaN(r) ? '–' : `${(r * 100).toFixed(0)}%`;
}

export function num(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits);
}

export function usd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '–';
  return x < 0 ? `-$${(-x).toFixed(2)}` : `$${x.toFixed(2)}`;
}

export function time(s: number | null | undefined): string {
  if (s === null || s === undefined || !s) return '–';
  return new Date(s * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

// Query parameters of the hash route ("#/incidents?status=open").
export function hashParams(): URLSearchParams {
  const q = location.hash.indexOf('?');
  return new URLSearchParams(q >= 0 ? location.hash.slice(q + 1) : '');
}

export const kVendorColor: Record<string, string> = {
  nvidia: '#5f9e00', amd: '#d3222a', intel: '#0a6fc2',
};
export const kPalette = ['#5f9e00', '#d3222a', '#0a6fc2', '#8a4fbf', '#d98a00', '#11998e', '#7a7a7a'];
