// The night: from the report and the events of a window, a timeline per worker (its
// iterations coloured and patterned by outcome, its waits on usage limits, its landings and
// send-backs) and the fleet's cost over time.

import { get } from './api.js';
import { el, replace, section, message } from './dom.js';
import { svg, title, text, pct } from './svg.js';
import { clock, duration, money } from './words.js';
import { legend, outcomeClass, outcomeWord } from './legend.js';

const windows = [['6h', 'last 6 hours'], ['12h', 'last 12 hours'], ['24h', 'last 24 hours'], ['3d', 'last 3 days']];
let chosen = '12h';

export function nightPage(main) {
  const select = el('select', { id: 'night-window', name: 'since' },
    windows.map(([v, words]) => el('option', { value: v, selected: v === chosen }, words)));
  const body = el('div', { 'aria-busy': 'true' }, message('Reading the night…'));
  replace(main, el('div', { class: 'nhead' }, el('h1', {}, 'The night'),
    el('label', { for: 'night-window', class: 'inline' }, 'Window ', select)), body);
  let stale = false;
  const load = async () => {
    body.setAttribute('aria-busy', 'true');
    try {
      const since = encodeURIComponent(chosen);
      const [report, events] = await Promise.all([get('/api/v1/report?since=' + since),
        get('/api/v1/events?since=' + since).catch(() => ({ events: [] }))]);
      if (!stale) draw(body, report, events.events || []);
    } catch (e) {
      replace(body, message('The report cannot be read: ' + e.message, 'error'));
    }
    body.removeAttribute('aria-busy');
  };
  select.addEventListener('change', () => { chosen = select.value; load(); });
  load();
  return () => { stale = true; };
}

function draw(body, report, events) {
  const t0 = Date.parse(report.since);
  const t1 = Date.parse(report.until);
  const span = { t0, t1, x: (t) => (Date.parse(t) - t0) / (t1 - t0) };
  const totals = report.totals || {};
  const workers = report.workers || [];
  replace(body,
    el('p', { class: 'summary' }, summary(totals)),
    legend(),
    section('Timeline', workers.length ? el('div', { class: 'timelines' }, axis(span),
      workers.map((w) => timeline(w, span, events))) : message('No worker in this window.')),
    section('Cost over time', costChart(workers, span)));
}

function summary(t) {
  const o = t.outcomes || {};
  return [`${t.workers || 0} workers`, `${o.total || 0} iterations`, `${o.done || 0} done`,
    `${o.failed || 0} failed`, `${(o.timed_out || 0) + (o.hung || 0)} timed out or hung`,
    `${t.landed || 0} landed`, `${t.sent_back || 0} sent back`, `cost ${money(t.cost_usd)}`].join(' · ');
}

function axis(span) {
  const hours = (span.t1 - span.t0) / 3600e3;
  const step = (hours <= 6 ? 1 : hours <= 12 ? 2 : hours <= 24 ? 4 : 12) * 3600e3;
  const ticks = [];
  for (let t = Math.ceil(span.t0 / step) * step; t <= span.t1; t += step) {
    const x = (t - span.t0) / (span.t1 - span.t0);
    if (x < 0.04 || x > 0.96) continue;
    ticks.push(svg('line', { x1: pct(x), x2: pct(x), y1: 14, y2: 20, class: 'tick' }),
      text({ x: pct(x), y: 11, 'text-anchor': 'middle', class: 'tick-label' }, clock(new Date(t))));
  }
  return svg('svg', { class: 'axis', height: 20, width: '100%', 'aria-hidden': 'true' }, ticks);
}

function timeline(w, span, events) {
  const host = w.host || 'local';
  const mine = events.filter((e) => e.worker === w.name && (e.host || 'local') === host);
  const api = new Set(mine.filter((e) => e.kind === 'iteration.ended' && e.how === 'api_error').map((e) => e.iteration));
  const marks = [];
  for (const it of w.iterations || []) marks.push(...iterationMarks(it, span, api.has(it.n)));
  marks.push(...parkedNow(mine, span), ...landMarks(mine, span));
  const o = w.outcomes || {};
  const label = `${w.name} on ${host}: ${o.total || 0} iterations, ${o.done || 0} done, ${o.failed || 0} failed`;
  return el('figure', { class: 'tl' },
    el('figcaption', {}, el('strong', {}, w.name), el('span', { class: 'muted' },
      ` ${host} · ${w.state}${w.state_detail ? ' (' + w.state_detail + ')' : ''} · ${o.total || 0} it · ${money(w.cost_usd)}`)),
    svg('svg', { class: 'lane', width: '100%', height: 28, role: 'img', 'aria-label': label },
      svg('rect', { x: 0, y: 0, width: '100%', height: 28, class: 'lane-bg' }), marks));
}

function iterationMarks(it, span, apiError) {
  const end = Date.parse(it.ended);
  const start = it.started ? Date.parse(it.started) : end - (it.duration_s || 0) * 1000;
  const marks = [];
  const limit = (it.waited && it.waited.usage_limit_s) || 0;
  if (limit > 0) {
    const from = start - limit * 1000;
    marks.push(bar(span, from, start, 'wait', `waited ${duration(limit)} on a usage limit before iteration ${it.n}`));
  }
  const cls = apiError ? 'api' : outcomeClass(it.outcome);
  const word = apiError ? 'API error' : outcomeWord(it.outcome);
  const says = `iteration ${it.n}: ${word}${it.reason ? ' (' + it.reason + ')' : ''}, ` +
    `${clock(start)}–${clock(end)}, ${duration((end - start) / 1000)}, ${money(it.cost_usd)}`;
  marks.push(bar(span, start, end, 'o-' + cls, says));
  return marks.filter(Boolean);
}

function bar(span, from, to, cls, says) {
  const a = (from - span.t0) / (span.t1 - span.t0);
  const b = (to - span.t0) / (span.t1 - span.t0);
  if (b < 0 || a > 1) return null;
  const x = Math.max(0, a);
  const w = Math.max(0.003, Math.min(1, b) - x);
  return svg('rect', { x: pct(x), width: pct(w), y: cls === 'wait' ? 8 : 4, height: cls === 'wait' ? 12 : 20,
    class: 'bar ' + cls, 'aria-label': says }, title(says));
}

// parkedNow is a wait on a usage limit still under way: parked, and not unparked since.
function parkedNow(mine, span) {
  const last = mine.filter((e) => e.kind === 'loop.parked' || e.kind === 'loop.unparked').at(-1);
  if (!last || last.kind !== 'loop.parked') return [];
  const says = 'waiting on a usage limit since ' + clock(last.time) + (last.detail ? ', until ' + last.detail : '');
  return [bar(span, Date.parse(last.time), span.t1, 'wait', says)].filter(Boolean);
}

function landMarks(mine, span) {
  return mine.filter((e) => e.kind === 'land.landed' || e.kind === 'land.sent_back').map((e) => {
    const x = pct(span.x(e.time));
    const landed = e.kind === 'land.landed';
    const says = landed ? `landed ${e.branch || ''} on ${e.detail || 'its target'} at ${clock(e.time)}`
      : `sent back at ${clock(e.time)}: ${e.how || ''} ${e.reason || ''}`;
    return svg('g', { class: landed ? 'mark landed' : 'mark sentback', role: 'img', 'aria-label': says }, title(says),
      svg('line', { x1: x, x2: x, y1: 0, y2: 28 }),
      landed ? svg('circle', { cx: x, cy: 6, r: 5 }) : svg('circle', { cx: x, cy: 22, r: 5 }));
  });
}

function costChart(workers, span) {
  const points = [];
  for (const w of workers) {
    for (const it of w.iterations || []) {
      if (typeof it.cost_usd === 'number' && it.cost_usd > 0) points.push([Date.parse(it.ended), it.cost_usd]);
    }
  }
  if (!points.length) return message('No cost known in this window (an agent whose token use swarm cannot read has none).');
  points.sort((a, b) => a[0] - b[0]);
  let sum = 0;
  const xy = [[0, 0]];
  for (const [t, c] of points) {
    const x = (t - span.t0) / (span.t1 - span.t0);
    xy.push([x, sum]);
    sum += c;
    xy.push([x, sum]);
  }
  xy.push([1, sum]);
  const d = xy.map(([x, y]) => `${(x * 1000).toFixed(1)},${(100 - (y / sum) * 96).toFixed(1)}`).join(' ');
  const says = `Cost over time: ${money(sum)} in all, from ${clock(span.t0)} to ${clock(span.t1)}`;
  return el('figure', { class: 'costfig' },
    el('figcaption', {}, `${money(sum)} in all · ${money(sum / ((span.t1 - span.t0) / 3600e3))} an hour`),
    svg('svg', { viewBox: '0 0 1000 100', preserveAspectRatio: 'none', class: 'costline', role: 'img', 'aria-label': says },
      title(says),
      svg('line', { x1: 0, x2: 1000, y1: 4, y2: 4, class: 'grid' }),
      svg('polyline', { points: d, class: 'line' })),
    el('p', { class: 'small muted' }, `0 at the bottom, ${money(sum)} at the top`), axis(span));
}
