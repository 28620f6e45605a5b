// Planners: a request as TOML (the same text as the CLI's files), sent to
// POST /api/v1/plan/<kind>; shows the plan in plain language, its notes, and
// the numbers behind it (every field of the answer, objects as facts and
// lists of objects as tables).
import { api, errorText, isMissing } from '../api';
import { clear, h, note } from '../dom';

type Kind = 'inference' | 'training' | 'ring';

// Small examples per planner (data/plan/ has the CLI's fuller files).
const kExamples: Record<Kind, string> = {
  inference: [
    '# Llama-2-70B on the first 500 requests of the Azure conversation trace.',
    'model = "llama2-70b"', 'trace = "conv"', 'max_requests = 500',
    'gpu_types = ["a100-80gb", "h100", "mi300x"]', 'ttft_ms = 2000', 'tpot_ms = 100', 'attainment = 0.99',
    '# The serving policy the plan is priced for (docs/plan.md):',
    'admission = "fcfs"          # or "deadline": prompts that can still keep their TTFT first',
    'queue = "instance"          # or "shared": one queue per prefill pool',
    'prefill_batch_tokens = 8192 # prompt tokens per prefill-only iteration; 1 = one prompt',
    'search_serving = false      # true: plan under 8 policies, keep the cheapest (slower)',
  ].join('\n'),
  training: [
    '# Data parallel over a 50/50 two-vendor cluster whose ranks differ 2x in speed.',
    'mode = "data"', 'microbatches = 64', 'allreduce_ms = 40', '',
    '[[rank]]', 'name = "h100-node"', 'gpu = "h100"', 'count = 4', 'microbatch_ms = 100', '',
    '[[rank]]', 'name = "mi250x-node"', 'gpu = "mi250x"', 'count = 4', 'microbatch_ms = 200',
  ].join('\n'),
  ring: [
    '# 8 ranks on two nodes in two clouds.', 'message_mib = 1024', '',
    '[links.node]', 'gb_s = 300', 'latency_us = 5', '',
    '[links.cloud]', 'gb_s = 5', 'latency_us = 2000', 'egress_usd_per_gb = 0.02', '',
    '[links.intercloud]', 'gb_s = 1.25', 'latency_us = 10000', 'egress_usd_per_gb = 0.09', '',
    '[[rank]]', 'node = "aws-a"', 'cloud = "aws"', 'region = "us-east-1"', 'count = 4', '',
    '[[rank]]', 'node = "gcp-a"', 'cloud = "gcp"', 'region = "us-central1"', 'count = 4',
  ].join('\n'),
};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function scalar(v: Json): string {
  if (v === null) return '–';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v)) return v.map(scalar).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const isRecord = (v: Json): v is { [k: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);

function facts(o: { [k: string]: Json }): HTMLElement {
  return h('dl', { class: 'facts' }, ...Object.entries(o).flatMap(([k, v]) =>
    [h('dt', { text: k }), h('dd', { text: scalar(v) })]));
}

function table(name: string, rows: { [k: string]: Json }[]): HTMLElement {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return h('table', { class: 'grid', 'data-table': name },
    h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { text: c })))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...cols.map((c) =>
      h('td', { class: typeof r[c] === 'number' ? 'n' : '', text: scalar(r[c] ?? null) }))))));
}

function answerView(kind: Kind, a: { [k: string]: Json }): HTMLElement {
  const box = h('div', { class: 'plan-answer', id: 'plan-answer', 'data-kind': kind });
  const summary = typeof a.summary === 'string' ? a.summary : '';
  box.append(h('p', { class: 'lead', id: 'plan-summary', text: summary || '(no summary)' }));
  const notes = Array.isArray(a.notes) ? a.notes : [];
  if (notes.length) box.append(h('ul', { class: 'notes' }, ...notes.map((n) => h('li', { text: scalar(n) }))));
  const rest = Object.entries(a).filter(([k]) => k !== 'summary' && k !== 'notes');
  const isTable = (v: Json) => Array.isArray(v) && v.length > 0 && v.every(isRecord);
  const top = rest.filter(([, v]) => !isRecord(v) && !isTable(v));
  if (top.length) box.append(facts(Object.fromEntries(top)));
  for (const [k, v] of rest) {
    if (isRecord(v)) box.append(h('h2', { text: k }), facts(v));
    else if (isTable(v)) box.append(h('h2', { text: k }), table(k, v as { [k: string]: Json }[]));
  }
  return box;
}

export function planPage(root: HTMLElement, arg: string): void {
  let kind: Kind = arg === 'training' || arg === 'ring' ? arg : 'inference';
  const out = h('div', { class: 'plan-out' });
  const text = h('textarea', { id: 'plan-toml', rows: 16, cols: 72, spellcheck: 'false' });
  text.value = kExamples[kind];
  const picker = h('select', { id: 'plan-kind' },
    ...(['inference', 'training', 'ring'] as Kind[]).map((k) => h('option', { value: k, text: k })));
  picker.value = kind;
  picker.addEventListener('change', () => {
    kind = picker.value as Kind;
    text.value = kExamples[kind];
    clear(out);
  });
  const form = h('form', { class: 'plan-form', id: 'plan-form' },
    h('label', {}, h('span', { text: 'planner ' }), picker), text, h('button', { type: 'submit', text: 'Plan' }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void (async () => {
      clear(out);
      out.append(note('planning… (an inference plan simulates the trace for every candidate)'));
      try {
        const a = await api<{ [k: string]: Json }>(`/api/v1/plan/${kind}`, { method: 'POST', body: text.value });
        clear(out);
        out.append(answerView(kind, a));
      } catch (e) {
        clear(out);
        out.append(isMissing(e) ? h('p', { class: 'note warn', 'data-missing': 'plan', text: `plan: ${e.message}` })
                                : h('p', { class: 'note error', id: 'plan-error', text: errorText(e) }));
      }
    })();
  });
  root.append(h('h1', { text: 'Planners' }),
    h('p', { class: 'muted', text: 'Serving pools (colocated or prefill/decode split), a training job\'s work split ' +
      'across mixed ranks, or an all-reduce ring order: the same TOML and answer as `gpufleet plan <kind>`. ' +
      'Nothing is changed.' }),
    form, out);
}
