// Canary: recent gate runs per hardware target with their verdicts.
import { api, errorText, isMissing } from '../api';
import { h, note, notAvailable, num, pct, time } from '../dom';

interface Check { name: string; verdict: string; value: number | null; baseline: number | null; delta_ratio: number | null; message: string }
interface Run { id: number | string; target: string; image: string; started: number; verdict: string; checks: Check[] }

export async function canaryPage(root: HTMLElement): Promise<void> {
  root.append(h('h1', { text: 'Canary' }));
  let runs: Run[];
  try {
    runs = (await api<{ runs: Run[] }>('/api/v1/canary/runs?limit=50')).runs;
  } catch (e) {
    root.append(isMissing(e) ? notAvailable('canary runs (/api/v1/canary/runs)', e.message) : note(errorText(e), 'error'));
    return;
  }
  if (!runs.length) {
    root.append(note('No canary verdicts yet: `gpufleet canary run --push` posts them.'));
    return;
  }
  const byTarget = new Map<string, Run[]>();
  for (const r of runs) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
  for (const [target, list] of byTarget) {
    const sec = h('section', { class: 'canary-target', 'data-target': target }, h('h2', { text: target }));
    for (const r of list) {
      sec.append(h('details', { class: 'run', 'data-verdict': r.verdict, open: r.verdict !== 'pass' },
        h('summary', {}, h('span', { class: `badge ${r.verdict === 'pass' ? 'ok' : r.verdict === 'warn' ? 'warn' : 'bad'}`, text: r.verdict }),
          ` ${time(r.started)} · ${r.image} · ${r.checks.length} checks`),
        h('table', { class: 'grid' },
          h('thead', {}, h('tr', {}, ...['check', 'verdict', 'value', 'baseline', 'change', 'message'].map((t) => h('th', { text: t })))),
          h('tbody', {}, ...r.checks.map((c) => h('tr', {},
            h('td', { text: c.name }), h('td', { text: c.verdict }), h('td', { class: 'n', text: num(c.value, 3) }),
            h('td', { class: 'n', text: num(c.baseline, 3) }), h('td', { class: 'n', text: pct(c.delta_ratio) }),
            h('td', { text: c.message })))))));
    }
    root.append(sec);
  }
}
