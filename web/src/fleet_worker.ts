// A dedicated worker that fetches /api/v1/fleet and parses it off the main
// thread, so the contention map keeps its frames while 10,000 devices' JSON
// is decoded every second. Each message {token} answers one FleetPoints
// (or {status, error}); the coordinates travel as transferred buffers.

export interface FleetPoints {
  status: number;
  error?: string;
  total: number;                 // devices in the answer
  ids: string[];                 // device ids of the points, in order
  models: string[];
  vendors: string[];
  x: Float64Array;               // memory bandwidth utilization, 0-1
  y: Float64Array;               // SM occupancy, 0-1
  region: ContentionRegion | null;  // the configured rule's region, if any
}

export interface ContentionRegion {
  rule: string;
  bandwidth_above: number;
  occupancy_below: number;
}

interface Device {
  gpu_uuid: string; device?: string; model: string; vendor: string;
  memory_bandwidth: number | null; occupancy: number | null;
}

const ctx = self as unknown as {
  onmessage: ((ev: MessageEvent<{ token: string }>) => void) | null;
  postMessage: (message: unknown, transfer?: Transferable[]) => void;
};

ctx.onmessage = async (ev) => {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (ev.data.token) headers.Authorization = `Bearer ${ev.data.token}`;
  try {
    const res = await fetch('/api/v1/fleet', { headers });
    if (!res.ok) {
      let error = res.statusText;
      try {
        const j = await res.json();
        if (j && typeof j.error === 'string') error = j.error;
      } catch { /* not JSON */ }
      ctx.postMessage({ status: res.status, error });
      return;
    }
    const fleet = (await res.json()) as { devices: Device[]; contention_region?: ContentionRegion | null };
    const ids: string[] = [];
    const models: string[] = [];
    const vendors: string[] = [];
    const xs: number[] = [];
    const ys: number[] = [];
    for (const d of fleet.devices) {
      if (d.memory_bandwidth === null || d.occupancy === null) continue;
      ids.push(d.device ?? d.gpu_uuid);
      models.push(d.model);
      vendors.push(d.vendor);
      xs.push(d.memory_bandwidth);
      ys.push(d.occupancy);
    }
    const x = Float64Array.from(xs);
    const y = Float64Array.from(ys);
    const out: FleetPoints = {
      status: 200, total: fleet.devices.length, ids, models, vendors, x, y,
      region: fleet.contention_region ?? null,
    };
    ctx.postMessage(out, [x.buffer, y.buffer]);
  } catch (e) {
    ctx.postMessage({ status: 0, error: `the server did not answer (${String(e)})` });
  }
};
