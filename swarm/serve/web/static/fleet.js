// The fleet: every host's workers in one list, those needing a person first, then those
// running, then the rest; each row kept fresh from the event stream.

import { get, ref, workerPath } from './api.js';
import { el, replace, message } from './dom.js';
import { lastByWorker, note, onEvent, Refresher, workerKey } from './live.js';
import { ago, eventText, group, money, stateText } from './words.js';

const groups = ['Needs a person', 'Running', 'Others'];

export function fleetPage(main) {
  const list = el('div', { class: 'fleet', 'aria-busy': 'true' }, message('Loading the fleet…'));
  replace(main, el('h1', { class: 'visually-hidden' }, 'Fleet'), list);
  let workers = [];
  const draw = () => drawFleet(list, workers);
  const refresher = new Refresher({
    all: async () => { workers = await get('/api/v1/workers'); draw(); },
    one: async (key) => {
      const i = workers.findIndex((x) => ref(x) === key);
      let w;
      try {
        w = await get(workerPath(key));
      } catch (e) {
        // Gone from its host: out of the list. A host not answering: kept as last seen.
        if (e.status === 404 && i >= 0) { workers.splice(i, 1); draw(); }
        return;
      }
      if (!w.host && i >= 0) w.host = workers[i].host;
      if (i >= 0) workers[i] = w; else workers.push(w);
      draw();
    },
  });
  load(list).then((ws) => { workers = ws; draw(); }).catch((e) => {
    replace(list, message('The fleet cannot be read: ' + e.message, 'error'));
  });
  const off = onEvent((e) => {
    const key = e.worker ? workerKey(e.worker, e.host) : null;
    const known = key && workers.some((w) => ref(w) === key);
    // A worker not in the list yet (spawned), or a host's news: the whole list is asked.
    refresher.mark(known ? key : null);
  });
  return () => { off(); refresher.stop(); };
}

// load reads the workers and, for the last event of each, the day's events.
async function load(list) {
  const [workers, events] = await Promise.all([
    get('/api/v1/workers'),
    get('/api/v1/events?since=24h').catch(() => ({ events: [] })),
  ]);
  for (const e of events.events || []) note(e);
  list.removeAttribute('aria-busy');
  return workers || [];
}

function drawFleet(list, workers) {
  if (!workers.length) {
    replace(list, message('No workers. Start one with swarm spawn or swarm ralph spawn.'));
    return;
  }
  const sorted = [...workers].sort((a, b) => group(a) - group(b) ||
    (a.host || '').localeCompare(b.host || '') || a.name.localeCompare(b.name));
  const parts = [];
  for (let g = 0; g < groups.length; g++) {
    const ws = sorted.filter((w) => group(w) === g);
    if (!ws.length) continue;
    const id = 'group-' + g;
    parts.push(el('h2', { id, class: 'group g' + g }, groups[g] + ' · ' + ws.length));
    parts.push(el('ul', { class: 'rows', 'aria-labelledby': id }, ws.map(row)));
  }
  replace(list, parts);
}

function row(w) {
  const key = ref(w);
  const last = lastByWorker.get(key);
  const unreachable = w.state === 'unreachable';
  const iter = w.metadata && w.metadata.ralph_iteration;
  return el('li', { class: 'row s-' + cls(w.state), 'data-worker': key },
    el('a', { href: '#/w/' + encodeURIComponent(key) },
      el('span', { class: 'name' }, w.name),
      el('span', { class: 'state' }, el('span', { class: 'dot', 'aria-hidden': 'true' }), stateText(w)),
      el('span', { class: 'host', title: 'host' }, w.host || 'local'),
      el('span', { class: 'iter' }, iter ? 'iter ' + iter : ''),
      el('span', { class: 'cost', title: 'cost' }, money(w.cost_usd)),
      el('span', { class: 'last' }, unreachable
        ? 'unreachable, seen ' + (ago(w.last_seen) || 'never')
        : need(w) || (last ? eventText(last) + ' · ' + ago(last.time) : ''))));
}

function need(w) {
  if (!w.needs_person) return '';
  const since = w.needs_person.since ? ' · since ' + ago(w.needs_person.since) : '';
  return 'needs a person: ' + w.needs_person.what + since;
}

// cls is a state as a class name: only letters, so nothing the API says shapes the markup.
export function cls(word) {
  return String(word || 'unknown').toLowerCase().replace(/[^a-z]/g, '');
}
