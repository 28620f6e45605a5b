// Incidents: the list with filters, and one incident with its evidence as
// charts, root-cause shares, slowdown, cost impact, capture output and the
// acknowledge / resolve actions (they need the admin token).
import { api, ApiError, download, errorText, Incident, isMissing } from '../api';
import { h, note, pct, time, usd } from '../dom';
import { evidenceView } from '../evidence';

const kFilters = ['status', 'kind', 'node', 'team'] as const;

function matches(i: Incident, params: URLSearchParams): boolean {
  const kind = params.get('kind');
  const node = params.get('node');
  const team = params.get('team');
  const status = params.get('status');
  if (kind && i.kind !== kind) return false;
  if (team && i.team !== team) return false;
  if (status && status !== 'all' && i.status !== status) return false;
  if (node && i.subject.node !== node && !i.devices.some((d) => d.includes(node))) return false;
  return true;
}

export async function incidentsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  root.append(h('h1', { text: 'Incidents' }));
  const form = h('form', { class: 'filters', id: 'incident-filters' });
  for (const k of kFilters) {
    form.append(h('label', {}, `${k} `, h('input', { name: k, value: params.get(k) ?? '', size: 12 })));
  }
  form.append(h('button', { type: 'submit', text: 'Filter' }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const k of kFilters) {
      const v = (form.elements.namedItem(k) as HTMLInputElement).value.trim();
      if (v) q.set(k, v);
    }
    location.hash = `#/incidents?${q.toString()}`;
  });
  root.append(form);
  const q = new URLSearchParams({ limit: '500' });
  for (const k of kFilters) if (params.get(k)) q.set(k, params.get(k)!);
  // Servers without the kind / node / team filters ignore them; filter here too.
  const list = (await api<Incident[]>(`/api/v1/incidents?${q.toString()}`)).filter((i) => matches(i, params));
  if (!list.length) {
    root.append(note('No incidents match.'));
    return;
  }
  const body = h('tbody');
  for (const i of list) {
    body.append(h('tr', { 'data-incident': i.id, 'data-kind': i.kind },
      h('td', {}, h('a', { href: `#/incidents/${i.id}`, text: `#${i.id}` })), h('td', { text: i.kind }),
      h('td', {}, h('span', { class: `badge ${i.status === 'open' ? 'bad' : 'ok'}`, text: i.status }),
        i.acknowledged ? h('span', { class: 'badge', text: 'acknowledged' }) : null),
      h('td', { text: i.severity }), h('td', { text: i.team || '–' }), h('td', { text: i.subject.node ?? '' }),
      h('td', { text: i.summary }), h('td', { class: 'n', text: pct(i.estimated_slowdown) }),
      h('td', { text: time(i.first_seen_ns / 1e9) }), h('td', { text: time(i.last_seen_ns / 1e9) })));
  }
  root.append(h('table', { class: 'grid', 'data-table': 'incidents' },
    h('thead', {}, h('tr', {}, ...['id', 'kind', 'status', 'severity', 'team', 'node', 'summary', 'slowdown',
                                    'first seen', 'last seen'].map((t) => h('th', { text: t })))), body));
}

function actions(inc: Incident, onDone: () => void): HTMLElement {
  const out = h('span', { class: 'action-result', id: 'action-result' });
  const act = async (verb: 'ack' | 'resolve') => {
    out.textContent = '…';
    out.className = 'action-result';
    try {
      await api<Incident>(`/api/v1/incidents/${inc.id}/${verb}`, { method: 'POST', body: '{}' });
      out.textContent = verb === 'ack' ? 'acknowledged' : 'resolved';
      out.classList.add('ok');
      onDone();
    } catch (e) {
      out.dataset.status = e instanceof ApiError ? String(e.status) : '0';
      out.textContent = isMissing(e) && /not found/i.test(e.message)
        ? `${verb}: not available in this build (${e.message})` : errorText(e);
      out.classList.add('bad');
    }
  };
  return h('p', { class: 'actions' },
    h('button', { type: 'button', id: 'ack', onclick: () => { void act('ack'); }, text: 'Acknowledge' }), ' ',
    h('button', { type: 'button', id: 'resolve', onclick: () => { void act('resolve'); }, text: 'Resolve' }), ' ',
    out);
}

// The capture's output path and, below it, its files on the server as
// downloads (GET /api/v1/incidents/{id}/capture); a capture whose command
// left its output on the node has none here, and the page says so.
function captureFiles(inc: Incident): HTMLElement {
  const box = h('div', { class: 'capture' }, h('code', { text: inc.capture_path }));
  const base = `/api/v1/incidents/${encodeURIComponent(String(inc.id))}/capture`;
  void api<{ files: { name: string; bytes: number }[] }>(base).then((c) => {
    if (!c.files.length) {
      box.append(note('no capture files on the server (the command may have left them on the node)'));
      return;
    }
    const status = h('span', { class: 'muted' });
    box.append(h('ul', {}, ...c.files.map((f) => h('li', {},
      h('button', {
        type: 'button', class: 'link', 'data-capture-file': f.name, text: f.name,
        onclick: () => {
          status.textContent = ` downloading ${f.name}…`;
          download(`${base}/${encodeURIComponent(f.name)}`, f.name)
            .then(() => { status.textContent = ''; })
            .catch((e) => { status.textContent = ` ${errorText(e)}`; });
        },
      }), ` ${bytes(f.bytes)}`))), status);
  }).catch((e) => { box.append(note(errorText(e), 'error')); });
  return box;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export async function incidentPage(root: HTMLElement, id: string): Promise<void> {
  let inc: Incident;
  try {
    inc = await api<Incident>(`/api/v1/incidents/${encodeURIComponent(id)}`);
  } catch (e) {
    root.append(h('h1', { text: `Incident ${id}` }), note(errorText(e), 'error'));
    return;
  }
  const reload = () => { window.dispatchEvent(new HashChangeEvent('hashchange')); };
  root.append(h('h1', { text: `Incident #${inc.id}: ${inc.kind}` }), h('p', { class: 'lead', text: inc.summary }),
    actions(inc, reload));
  const capture = inc.capture_path ? captureFiles(inc) : 'none';
  const cost = inc.cost_usd === undefined ? 'not available in this build'
             : inc.cost_usd === null ? 'not attributed (cost ledger off)' : usd(inc.cost_usd);
  root.append(h('dl', { class: 'facts' },
    ...([['status', inc.status + (inc.acknowledged ? `, acknowledged ${time(inc.acknowledged_at)}` : '')],
         ['severity', inc.severity], ['team', inc.team || '–'],
         ['devices', inc.devices.join(', ') || '–'], ['workloads', inc.workloads.join(', ') || '–'],
         ['first seen', time(inc.first_seen_ns / 1e9)], ['last seen', time(inc.last_seen_ns / 1e9)],
         ['window', `${time(inc.window_start_ns / 1e9)} – ${time(inc.window_end_ns / 1e9)}`],
         ['estimated slowdown', pct(inc.estimated_slowdown)], ['cost impact', cost],
         ['observations', String(inc.observations)]] as [string, string][])
      .flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })]),
    h('dt', { text: 'capture' }), h('dd', {}, capture)));
  if (inc.devices.length) {
    root.append(h('p', {}, 'Devices: ', ...inc.devices.map((d) =>
      h('a', { class: 'chip', href: `#/device/${encodeURIComponent(d)}`, text: d }))));
  }
  root.append(h('h2', { text: 'Root cause' }));
  if (!inc.causes.length) root.append(note('no root-cause analysis for this incident'));
  for (const c of inc.causes) {
    root.append(h('div', { class: 'cause', 'data-cause': c.cause },
      h('span', { class: 'cause-name', text: c.cause }),
      h('meter', { min: 0, max: 1, value: c.share }), h('span', { class: 'n', text: ` ${pct(c.share)} ` }),
      h('span', { class: 'muted', text: c.explanation })));
  }
  root.append(h('h2', { text: 'Evidence' }));
  const ev = h('div', { class: 'evidence-list' });
  root.append(ev);
  if (!inc.evidence || !inc.evidence.length) ev.append(note('no evidence recorded'));
  for (const e of inc.evidence ?? []) ev.append(evidenceView(inc, e));
}
