// One worker: its state, what it needs a person for, its actions, its live screen, its
// iterations and their checks, cost and landing.

import { get, serverInfo, workerPath } from './api.js';
import { el, replace, section, dl, message } from './dom.js';
import { actionsView, outputView } from './actions.js';
import { onEvent, Refresher, workerKey } from './live.js';
import { screenView } from './screen.js';
import { ago, duration, money, stateText } from './words.js';
import { cls } from './fleet.js';

export function workerPage(main, name) {
  const head = el('div', { class: 'whead' }, el('h1', {}, name));
  const body = el('div', { class: 'wbody', 'aria-busy': 'true' }, message('Loading ' + name + '…'));
  let current = null;
  const out = outputView();
  const screen = screenView(name, () => current && current.w.status === 'running');
  replace(main, el('p', { class: 'crumb' }, el('a', { href: '#/' }, '← Fleet')), head, body);
  const load = async () => {
    try {
      current = await fetchWorker(name);
      draw(head, body, name, current, { screen, out, after: () => refresher.mark(name) });
      screen.wake();
    } catch (e) {
      replace(body, message(name + ' cannot be read: ' + e.message, 'error'));
    }
  };
  const refresher = new Refresher({ one: load, all: load });
  load();
  const off = onEvent((e) => { if (workerKey(e.worker, e.host) === name) refresher.mark(name); });
  return () => { off(); refresher.stop(); screen.stop(); };
}

async function fetchWorker(name) {
  const w = await get(workerPath(name));
  // Only a loop has a loop and iterations to ask for: a plain worker's would be 404s.
  const isLoop = !!(w.metadata && w.metadata.ralph);
  const [loop, iterations, server] = await Promise.all([
    isLoop ? get(workerPath(name, '/loop')).catch((e) => (e.status === 404 ? null : Promise.reject(e))) : null,
    isLoop ? get(workerPath(name, '/iterations')).catch(() => []) : [],
    serverInfo().catch(() => ({ read_only: true })),
  ]);
  return { w, loop, iterations: iterations || [], readOnly: !!server.read_only };
}

function draw(head, body, name, { w, loop, iterations, readOnly }, { screen, out, after }) {
  replace(head, el('h1', {}, w.name),
    el('p', { class: 'wstate s-' + cls(w.state) }, el('span', { class: 'dot', 'aria-hidden': 'true' }),
      stateText(w), el('span', { class: 'muted' }, ' · ' + (w.host || 'local'))));
  const parts = [];
  if (w.needs_person) {
    parts.push(el('div', { class: 'need', role: 'note' }, el('strong', {}, 'Needs a person: '),
      w.needs_person.what, w.needs_person.since ? ' (since ' + ago(w.needs_person.since) + ')' : ''));
  }
  if (!readOnly) parts.push(actionsView(name, w, loop, after, out));
  parts.push(section('Screen', screen.node));
  parts.push(section('Loop', facts(w, loop, iterations)));
  if (loop) parts.push(section('Iterations', iterationsTable(iterations)));
  const checks = lastChecks(iterations);
  if (checks) parts.push(section('Checks', checks));
  body.removeAttribute('aria-busy');
  replace(body, parts);
}

function facts(w, loop, iterations) {
  const cost = iterations.reduce((sum, r) => (typeof r.cost === 'number' ? sum + r.cost : sum), 0);
  const landing = w.landing ? landingText(w.landing) : '';
  if (!loop) {
    return dl([['Command', (w.cmd || []).join(' ')], ['Started', w.started ? ago(w.started) : ''],
      ['Cost', money(w.cost_usd)], ['Landing', landing]]);
  }
  return dl([
    ['Iteration', loop.current_iteration + (loop.max_iterations ? ' of ' + loop.max_iterations : '')],
    ['Phase', loop.phase],
    ['Failures', loop.consecutive_failures + ' in a row, ' + loop.total_failures + ' in all'],
    ['Cost', money(w.cost_usd !== null && w.cost_usd !== undefined ? w.cost_usd : (cost || null))],
    ['Started', loop.started ? ago(loop.started) : ''],
    ['Ended', loop.ended ? ago(loop.ended) + (loop.exit_reason ? ' (' + loop.exit_reason + ')' : '') : ''],
    ['Landing', landing],
    ['Directory', loop.work_dir],
  ], { class: 'facts' });
}

function landingText(l) {
  const word = String(l.state || '').replaceAll('_', ' ');
  if (l.state === 'landed') return 'landed on ' + l.target + ' at ' + String(l.commit || '').slice(0, 12);
  const back = l.resumed_loop ? ', sent back to its loop' : '';
  return word + back + (l.reason ? ': ' + l.reason : ' (into ' + l.target + ')');
}

function iterationsTable(records) {
  if (!records.length) return message('No iteration has ended yet.');
  const rows = [...records].reverse().slice(0, 50).map((r) => {
    const out = outcome(r);
    return el('tr', {},
      el('td', { class: 'num' }, String(r.iteration)),
      el('td', {}, el('span', { class: 'badge o-' + out.cls }, out.word)),
      el('td', {}, r.endReason || ''),
      el('td', { class: 'num' }, duration((r.durationMs || 0) / 1000)),
      el('td', { class: 'num' }, money(r.cost)),
      el('td', { class: 'num' }, String((r.commits || []).length)));
  });
  return el('div', { class: 'scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Iterations' },
    el('table', {}, el('thead', {}, el('tr', {}, ['#', 'Outcome', 'Ended by', 'Time', 'Cost', 'Commits']
      .map((h) => el('th', { scope: 'col' }, h)))), el('tbody', {}, rows)));
}

// outcome is an iteration record's ending in a word, as the night's report says it.
export function outcome(r) {
  if (r.rolledBack) return { word: 'rolled back', cls: 'failed' };
  if ((r.checks || []).some((c) => !c.passed)) return { word: 'checks failed', cls: 'failed' };
  switch (r.endReason) {
    case 'done': case 'done_file': return { word: 'done', cls: 'done' };
    case 'hang': return { word: 'hung', cls: 'timeout' };
    case 'iteration_timeout': case 'ready_timeout': return { word: 'timed out', cls: 'timeout' };
    case 'api_error': return { word: 'API error', cls: 'api' };
    case 'usage_limit': return { word: 'usage limit', cls: 'limit' };
    case 'exit': return r.exitCode === 0 ? { word: 'ended', cls: 'ended' } : { word: 'failed', cls: 'failed' };
  }
  return { word: 'ended', cls: 'ended' };
}

function lastChecks(records) {
  const r = [...records].reverse().find((x) => (x.checks || []).length);
  if (!r) return null;
  return el('ul', { class: 'checks' }, r.checks.map((c) =>
    el('li', { class: c.passed ? 'pass' : 'fail' }, (c.passed ? '✓ passed ' : '✗ failed ') + c.name,
      c.message ? el('span', { class: 'muted' }, ' — ' + c.message) : null)));
}
