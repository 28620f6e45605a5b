// Cost: the ledger per team / model / cloud split into base, idle,
// contention and declared network transfers, and each team budget's month so
// far with its forecast.
import { api, errorText, isMissing } from '../api';
import { h, note, notAvailable, num, usd } from '../dom';

interface CostRow {
  group: Record<string, string>; gpu_hours: number; idle_gpu_hours: number; base_usd: number;
  idle_usd: number; contention_usd: number; network_usd: number; network_gb: number; total_usd: number;
  lost_gpu_hours: number;
}
interface CostReport { from: string; to: string; by: string[]; rows: CostRow[]; total: CostRow; partial: boolean; warnings: string[] }
interface Budget { team: string; budget_usd: number; spent_usd: number; rate_usd_per_day: number; forecast_usd: number; state: string; summary: string }

const kBy = ['team', 'model', 'cloud'];
const kFrom = ['-1h', '-24h', '-7d', '-30d'];

export async function costPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const by = kBy.includes(params.get('by') ?? '') ? params.get('by')! : 'team';
  const from = kFrom.includes(params.get('from') ?? '') ? params.get('from')! : '-24h';
  root.append(h('h1', { text: 'Cost' }),
    h('p', { class: 'ranges' }, 'By: ', ...kBy.map((b) => h('a', { href: `#/cost?by=${b}&from=${from}`, class: b === by ? 'current' : '', text: b })),
      ' · since: ', ...kFrom.map((f) => h('a', { href: `#/cost?by=${by}&from=${f}`, class: f === from ? 'current' : '', text: f.slice(1) }))));
  let report: CostReport;
  try {
    report = await api<CostReport>(`/api/v1/cost?format=json&by=${by}&from=${from}`);
  } catch (e) {
    root.append(isMissing(e) ? notAvailable('cost ledger (/api/v1/cost)', e.message) : note(errorText(e), 'error'));
    return;
  }
  const max = Math.max(1e-9, ...report.rows.map((r) => r.total_usd));
  const row = (label: string, r: CostRow, cls = '') => h('tr', { class: cls, 'data-group': label },
    h('td', { text: label }), h('td', { class: 'n', text: num(r.gpu_hours, 2) }),
    h('td', { class: 'n', text: usd(r.base_usd) }), h('td', { class: 'n', text: usd(r.idle_usd) }),
    h('td', { class: 'n', text: usd(r.contention_usd) }), h('td', { class: 'n', title: `${num(r.network_gb, 1)} GB declared`, text: usd(r.network_usd) }),
    h('td', { class: 'n', text: usd(r.total_usd) }), h('td', { class: 'n', text: num(r.lost_gpu_hours, 2) }),
    h('td', {}, cls ? '' : h('meter', { min: 0, max, value: r.total_usd })));
  const body = h('tbody');
  for (const r of report.rows) body.append(row(Object.values(r.group).join(' / ') || '(none)', r));
  body.append(row('total', report.total, 'total'));
  root.append(h('p', { class: 'muted', text: `${report.from} – ${report.to}` }),
    h('table', { class: 'grid', 'data-table': 'cost' },
      h('thead', {}, h('tr', {}, ...[by, 'GPU hours', 'base', 'idle', 'contention', 'network', 'total',
                                      'GPU hours lost to contention', ''].map((t) => h('th', { text: t })))),
      body));
  if (report.partial) root.append(note(`partial: ${report.warnings.join('; ')}`, 'warn'));
  root.append(h('h2', { text: 'Budgets' }));
  try {
    const b = await api<{ budgets: Budget[] }>('/api/v1/cost/budgets');
    if (!b.budgets.length) root.append(note('no budgets configured'));
    else {
      root.append(h('table', { class: 'grid', 'data-table': 'budgets' },
        h('thead', {}, h('tr', {}, ...['team', 'budget', 'spent this month', 'rate per day', 'forecast', 'state']
          .map((t) => h('th', { text: t })))),
        h('tbody', {}, ...b.budgets.map((x) => h('tr', {},
          h('td', { text: x.team }), h('td', { class: 'n', text: usd(x.budget_usd) }),
          h('td', { class: 'n', text: usd(x.spent_usd) }), h('td', { class: 'n', text: usd(x.rate_usd_per_day) }),
          h('td', { class: 'n', text: usd(x.forecast_usd) }),
          h('td', { title: x.summary }, h('span', { class: `badge ${x.state === 'ok' ? 'ok' : 'bad'}`, text: x.state })))))));
    }
  } catch (e) {
    root.append(isMissing(e) ? notAvailable('budgets', e.message) : note(errorText(e), 'error'));
  }
}
