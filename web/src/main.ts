// The gpufleet console: hash routes to pages, the token box, navigation.
// Each page renders into <main id="page">; a page may return a function that
// stops its timers when the user leaves it. When a page has rendered,
// <body data-page="..." data-ready="1" data-render-ms="..." data-ready-at-ms="...">
// says so (the browser tests and the benchmark wait for it).
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { errorText, getToken, setToken } from './api';
import { clear, h, hashParams, note } from './dom';
import { canaryPage } from './pages/canary';
import { contentionPage } from './pages/contention';
import { costPage } from './pages/cost';
import { devicePage } from './pages/device';
import { fleetPage } from './pages/fleet';
import { incidentPage, incidentsPage } from './pages/incidents';
import { placePage } from './pages/place';
import { planPage } from './pages/plan';

type Cleanup = (() => void) | void;
type Page = (root: HTMLElement, arg: string, params: URLSearchParams) => Promise<Cleanup> | Cleanup;

const kNav: [string, string][] = [
  ['fleet', 'Fleet'], ['contention', 'Contention'], ['incidents', 'Incidents'], ['cost', 'Cost'],
  ['place', 'Placement'], ['plan', 'Plan'], ['canary', 'Canary'],
];

const kPages: Record<string, Page> = {
  fleet: (root, _a, p) => fleetPage(root, p),
  contention: (root) => contentionPage(root),
  device: (root, a, p) => devicePage(root, a, p),
  incidents: (root, a, p) => (a ? incidentPage(root, a) : incidentsPage(root, p)),
  cost: (root, _a, p) => costPage(root, p),
  place: (root) => placePage(root),
  plan: (root, a) => planPage(root, a),
  canary: (root) => canaryPage(root),
};

let cleanup: Cleanup;
let generation = 0;

async function route(): Promise<void> {
  const gen = ++generation;
  if (cleanup) cleanup();
  cleanup = undefined;
  const path = location.hash.replace(/^#\/?/, '').split('?')[0];
  const [name, ...rest] = path.split('/');
  const page = kPages[name] ? name : 'fleet';
  const root = document.getElementById('page')!;
  clear(root);
  document.body.dataset.page = page;
  delete document.body.dataset.ready;
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('current', a.getAttribute('data-nav') === page);
  }
  const t0 = performance.now();
  try {
    const c = await kPages[page](root, decodeURIComponent(rest.join('/')), hashParams());
    if (gen !== generation) {
      if (c) c();
      return;
    }
    cleanup = c;
  } catch (e) {
    if (gen !== generation) return;
    root.append(note(errorText(e), 'error'));
  }
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.readyAtMs = performance.now().toFixed(1);  // since navigation start
  document.body.dataset.ready = '1';
}

function tokenBox(): void {
  const form = document.getElementById('token-form') as HTMLFormElement;
  const input = document.getElementById('token-input') as HTMLInputElement;
  const state = document.getElementById('token-state')!;
  // Writes always need an admin token; beyond loopback reads need a token
  // too, and those pages say so when the server refuses them.
  const show = () => {
    state.textContent = getToken() ? 'token set (this tab only)' : 'no token: writes are refused';
    state.title = 'Acknowledge and resolve need an admin token. A server listening beyond loopback ' +
      'also refuses reads without a read or admin token.';
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    setToken(input.value.trim());
    input.value = '';
    show();
    void route();
  });
  document.getElementById('token-clear')!.addEventListener('click', () => {
    setToken('');
    show();
    void route();
  });
  show();
}

function start(): void {
  const nav = document.getElementById('nav')!;
  for (const [id, label] of kNav) nav.append(h('a', { href: `#/${id}`, 'data-nav': id, text: label }));
  tokenBox();
  window.addEventListener('hashchange', () => { void route(); });
  void route();
}

start();
