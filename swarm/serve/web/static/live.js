// Following the server's event stream: one EventSource for the page, its cursor kept so a
// reconnect resumes after the last event seen, and the pages told of each event.

const listeners = new Set();
const statusListeners = new Set();
let source = null;
let cursor = '';
let retry = 1000;
let status = 'connecting';

// lastByWorker is the newest event seen of each worker (NAME or NAME@HOST).
export const lastByWorker = new Map();

export function workerKey(name, host) {
  return host && host !== 'local' ? name + '@' + host : name;
}

// note records an event as its worker's last, when it is newer than the one kept.
export function note(e) {
  if (!e || !e.worker) return;
  const key = workerKey(e.worker, e.host);
  const had = lastByWorker.get(key);
  if (!had || Date.parse(had.time) <= Date.parse(e.time)) lastByWorker.set(key, e);
}

export function onEvent(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function onStatus(fn) {
  statusListeners.add(fn);
  fn(status);
  return () => statusListeners.delete(fn);
}

function setStatus(s) {
  status = s;
  for (const fn of statusListeners) fn(s);
}

// start opens the stream, once; the browser reconnects by itself with Last-Event-ID, and
// when it gives up (the server restarted, a login expired) it is opened again with ?after.
export function start() {
  if (source) return;
  const url = '/api/v1/events/stream' + (cursor ? '?after=' + encodeURIComponent(cursor) : '');
  source = new EventSource(url, { withCredentials: true });
  source.onopen = () => { retry = 1000; setStatus('live'); };
  source.onmessage = (m) => {
    if (m.lastEventId) cursor = m.lastEventId;
    let e;
    try { e = JSON.parse(m.data); } catch { return; }
    note(e);
    for (const fn of listeners) fn(e);
  };
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) { setStatus('reconnecting'); return; }
    source = null;
    setStatus('offline');
    setTimeout(start, retry);
    retry = Math.min(retry * 2, 30000);
  };
}

// Refresher gathers what events made stale and refreshes it at most once per interval,
// however fast events come: each stale worker once, or the whole list when many are.
export class Refresher {
  constructor({ one, all, interval = 500, many = 4 }) {
    Object.assign(this, { one, all, interval, many });
    this.stale = new Set();
    this.everything = false;
    this.timer = null;
    this.last = 0;
  }

  mark(key) {
    if (key === null) this.everything = true;
    else this.stale.add(key);
    if (this.timer) return;
    const wait = Math.max(0, this.last + this.interval - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  async flush() {
    const keys = [...this.stale];
    const everything = this.everything || keys.length > this.many;
    this.stale.clear();
    this.everything = false;
    this.last = Date.now();
    try {
      if (everything) await this.all();
      else await Promise.all(keys.map((k) => this.one(k)));
    } finally {
      this.timer = null;
      if (!this.stopped && (this.stale.size || this.everything)) this.mark(this.everything ? null : [...this.stale][0]);
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    this.stale.clear();
  }
}
