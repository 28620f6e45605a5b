// Calls to the gpufleet server's JSON API from the console. The bearer token
// (if the user gave one) lives in sessionStorage only, and is sent as
// "Authorization: Bearer <token>" on every call.

const kTokenKey = 'gpufleet.token';

export class ApiError extends Error {
  constructor(public readonly status: number, message: string) {
    super(message);
  }
}

export function getToken(): string {
  return sessionStorage.getItem(kTokenKey) ?? '';
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(kTokenKey, token);
  else sessionStorage.removeItem(kTokenKey);
}

// Existing endpoints answer {"status": "success", "data": X}; newer ones X.
function unwrap(j: unknown): unknown {
  if (j && typeof j === 'object' && (j as { status?: unknown }).status === 'success' &&
      'data' in (j as object)) {
    return (j as { data: unknown }).data;
  }
  return j;
}

export async function api<T>(path: string, init: { method?: string; body?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body });
  } catch (e) {
    throw new ApiError(0, `the server did not answer (${String(e)})`);
  }
  const text = await res.text();
  let j: unknown = null;
  try {
    j = text ? JSON.parse(text) : null;
  } catch {
    if (!res.ok) throw new ApiError(res.status, text.slice(0, 200) || res.statusText);
    throw new ApiError(res.status, `${path}: the answer is not JSON`);
  }
  if (!res.ok) {
    const msg = j && typeof j === 'object' && 'error' in j ? String((j as { error: unknown }).error)
                                                           : res.statusText;
    throw new ApiError(res.status, msg);
  }
  return unwrap(j) as T;
}

// Fetches a file with the token and hands it to the browser as a download
// (a plain link could not carry the Authorization header).
export async function download(path: string, name: string): Promise<void> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, { headers });
  } catch (e) {
    throw new ApiError(0, `the server did not answer (${String(e)})`);
  }
  if (!res.ok) throw new ApiError(res.status, (await res.text()).slice(0, 200) || res.statusText);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// The id a page links a device by: `device` where the server gives it.
export function deviceId(d: FleetDevice): string {
  return d.device ?? d.gpu_uuid;
}

// A 404 from an API the page needs: this server build does not have it (or
// the feature is switched off, which its message says).
export function isMissing(e: unknown): e is ApiError {
  return e instanceof ApiError && e.status === 404;
}

export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return `refused (401): ${e.message}. Set the token in the box at the top.`;
    if (e.status === 403) return `refused (403): ${e.message}. This needs an admin token.`;
    return e.status ? `HTTP ${e.status}: ${e.message}` : e.message;
  }
  return String(e);
}

// ---- shapes of the answers (docs/console.md lists the endpoints) ----

export interface FleetDevice {
  // `device` ("node/uuid[/partition]") is unique; a partitioned GPU's
  // partitions share its gpu_uuid. The inventory fallback has no `device`.
  gpu_uuid: string; device?: string; node: string; cloud: string; region: string; vendor: string; model: string;
  team: string; workload: string; up: boolean | null; up_reason: string;
  utilization: number | null; memory_bandwidth: number | null; occupancy: number | null;
  power_watts: number | null; memory_used_ratio: number | null; open_incidents: number;
  last_seen: number | null;
}
export interface Fleet {
  generated_at: number; window_s: number;
  counts: { devices: number; up: number; down: number; stale: number; by_vendor: Record<string, number> };
  devices: FleetDevice[];
  live: boolean;  // false: built from /api/v1/inventory (no health or utilization)
}
export interface SeriesAnswer {
  metric: string; unit: string; source: string; partial: boolean; from: number; to: number;
  step: number; series: { labels: Record<string, string>; t: number[]; v: (number | null)[] }[];
}
export interface SchemaMetric { name: string; unit: string; help: string; type: string; comparability: string }
export interface Evidence {
  series: string; condition: string; threshold: number | null; value: number | null; detail: string;
  samples?: { t: number[]; v: (number | null)[]; source?: string; note?: string } | [number, number][];
  t?: number[]; v?: (number | null)[];
  window?: { from: number; to: number }; window_start?: number; window_end?: number;
}
export interface Incident {
  id: number; key: string; kind: string; status: string; subject: Record<string, string>;
  devices: string[]; workloads: string[]; team: string; severity: string; summary: string;
  first_seen_ns: number; last_seen_ns: number; resolved_at_ns: number;
  window_start_ns: number; window_end_ns: number; estimated_slowdown: number;
  causes: { cause: string; share: number; explanation: string }[];
  capture_path: string; observations: number; cost_usd?: number | null; evidence?: Evidence[];
  acknowledged?: boolean; acknowledged_at?: number | null;
}

interface Inventory {
  nodes: { name: string; cloud: string; region: string }[];
  devices: { key: string; node: string; vendor: string; model: string; last_seen_ns: number }[];
}

// The fleet summary; without /api/v1/fleet in this build, the inventory's
// devices with no live values (live = false).
export async function loadFleet(): Promise<Fleet> {
  try {
    const f = await api<Fleet>('/api/v1/fleet');
    f.live = true;
    return f;
  } catch (e) {
    if (!isMissing(e)) throw e;
  }
  const inv = await api<Inventory>('/api/v1/inventory');
  const nodes = new Map(inv.nodes.map((n) => [n.name, n]));
  const devices: FleetDevice[] = inv.devices.map((d) => ({
    gpu_uuid: d.key, node: d.node, cloud: nodes.get(d.node)?.cloud ?? '',
    region: nodes.get(d.node)?.region ?? '', vendor: d.vendor, model: d.model, team: '',
    workload: '', up: null, up_reason: '', utilization: null, memory_bandwidth: null,
    occupancy: null, power_watts: null, memory_used_ratio: null, open_incidents: 0,
    last_seen: d.last_seen_ns / 1e9,
  }));
  const by: Record<string, number> = {};
  for (const d of devices) by[d.vendor] = (by[d.vendor] ?? 0) + 1;
  return {
    generated_at: Date.now() / 1000, window_s: 0,
    counts: { devices: devices.length, up: 0, down: 0, stale: 0, by_vendor: by },
    devices, live: false,
  };
}
