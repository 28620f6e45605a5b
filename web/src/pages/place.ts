// Placement what-if: a workload request from a form or as TOML (the same
// keys as `gpufleet place --request`), sent to POST /api/v1/place; shows the
// chosen node and GPUs, the runners-up and every rejected node's reason.
import { parse as parseToml } from 'smol-toml';
import { api, errorText, isMissing } from '../api';
import { clear, h, note, num, usd } from '../dom';

interface PlaceAnswer {
  request: string; policy: string; placed: boolean; node: string | null; gpus: number[]; score: number | null;
  cost_usd_per_hour?: number; alternatives: { node: string; score: number; cost_usd_per_hour: number }[];
  feasible_nodes: number; rejections: { node: string; reason: string; detail: string }[];
}

const kFields: [string, string, string][] = [
  ['name', 'text', 'what-if'], ['cpu', 'text', '8'], ['memory', 'text', '64Gi'], ['gpus', 'number', '1'],
  ['gpu_share', 'number', ''], ['vendor', 'text', ''], ['gpu_models', 'text', ''], ['min_gpu_memory', 'text', ''],
  ['interconnect', 'text', ''], ['region', 'text', ''], ['intent', 'text', ''], ['priority', 'number', ''],
];
const kNumbers = new Set(['gpus', 'gpu_share', 'priority']);

function fromForm(form: HTMLFormElement): Record<string, unknown> {
  const req: Record<string, unknown> = {};
  for (const [k] of kFields) {
    const v = (form.elements.namedItem(k) as HTMLInputElement).value.trim();
    if (!v) continue;
    if (k === 'gpu_models') req[k] = v.split(',').map((s) => s.trim()).filter(Boolean);
    else req[k] = kNumbers.has(k) ? Number(v) : v;
  }
  return req;
}

function answerView(a: PlaceAnswer): HTMLElement {
  const box = h('div', { class: 'place-answer', id: 'place-answer', 'data-node': a.node ?? '',
                         'data-gpus': a.gpus.join(','), 'data-placed': String(a.placed) });
  box.append(a.placed
    ? h('p', { class: 'lead' }, `${a.request}: placed on `, h('strong', { text: a.node ?? '' }),
        ` GPUs ${a.gpus.join(', ')} (policy ${a.policy}, score ${num(a.score, 3)}` +
        `${a.cost_usd_per_hour !== undefined ? `, ${usd(a.cost_usd_per_hour)}/h` : ''})`)
    : h('p', { class: 'lead bad', text: `${a.request}: no node fits (policy ${a.policy})` }));
  box.append(h('h2', { text: `Runners-up (${Math.max(0, a.feasible_nodes - 1)} other feasible nodes)` }));
  if (!a.alternatives.length) box.append(note('none'));
  else {
    box.append(h('table', { class: 'grid', 'data-table': 'alternatives' },
      h('thead', {}, h('tr', {}, ...['node', 'score', 'cost per hour'].map((t) => h('th', { text: t })))),
      h('tbody', {}, ...a.alternatives.map((x) => h('tr', {}, h('td', { text: x.node }),
        h('td', { class: 'n', text: num(x.score, 3) }), h('td', { class: 'n', text: usd(x.cost_usd_per_hour) }))))));
  }
  box.append(h('h2', { text: `Rejected (${a.rejections.length})` }));
  if (a.rejections.length) {
    box.append(h('table', { class: 'grid', 'data-table': 'rejections' },
      h('thead', {}, h('tr', {}, ...['node', 'reason', 'detail'].map((t) => h('th', { text: t })))),
      h('tbody', {}, ...a.rejections.map((x) => h('tr', {}, h('td', { text: x.node }), h('td', { text: x.reason }),
        h('td', { text: x.detail }))))));
  }
  return box;
}

export function placePage(root: HTMLElement): void {
  const out = h('div', { class: 'place-out' });
  const form = h('form', { class: 'place-form', id: 'place-form' });
  for (const [k, type, value] of kFields) {
    form.append(h('label', {}, h('span', { text: k }), h('input', { name: k, type, value, step: type === 'number' ? 'any' : undefined })));
  }
  form.append(h('button', { type: 'submit', text: 'Place' }));
  const toml = h('textarea', { id: 'place-toml', rows: 12, cols: 60, spellcheck: 'false',
    placeholder: 'name = "train-llm"\ncpu = 32\nmemory = "256Gi"\ngpus = 4\nvendor = "nvidia"' });
  const tomlForm = h('form', { class: 'place-toml', id: 'place-toml-form' }, toml, h('button', { type: 'submit', text: 'Place TOML' }));
  const send = async (req: unknown) => {
    clear(out);
    out.append(note('…'));
    try {
      const a = await api<PlaceAnswer>('/api/v1/place', { method: 'POST', body: JSON.stringify(req) });
      clear(out);
      out.append(answerView(a));
    } catch (e) {
      clear(out);
      // A 404 says why (no [place] inventory in the server config).
      out.append(isMissing(e) ? h('p', { class: 'note warn', 'data-missing': 'placement', text: `placement: ${e.message}` })
                              : h('p', { class: 'note error', id: 'place-error', text: errorText(e) }));
    }
  };
  form.addEventListener('submit', (ev) => { ev.preventDefault(); void send(fromForm(form)); });
  tomlForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    let req: unknown;
    try {
      req = parseToml(toml.value);
    } catch (e) {
      clear(out);
      out.append(h('p', { class: 'note error', id: 'place-error', text: `TOML: ${String(e instanceof Error ? e.message : e)}` }));
      return;
    }
    void send(req);
  });
  root.append(h('h1', { text: 'Placement what-if' }),
    h('p', { class: 'muted', text: 'Where would this workload go? The same request and answer as `gpufleet place` ' +
      'on the server\'s [place] inventory; nothing is reserved.' }),
    h('div', { class: 'place-inputs' }, h('section', {}, h('h2', { text: 'Form' }), form),
      h('section', {}, h('h2', { text: 'or TOML' }), tomlForm)),
    out);
}
