// Times, costs, states and events as people read them, in the words swarm's commands use.

export function stateText(w) {
  const word = w.state || w.status || 'unknown';
  return w.state_detail ? word + ' (' + w.state_detail + ')' : word;
}

// group is where a worker stands in the fleet: 0 needs a person, 1 runs, 2 the rest.
export function group(w) {
  if (w.needs_person || w.state === 'blocked') return 0;
  if (w.state === 'running' || w.state === 'waiting' || w.state === 'paused') return 1;
  return 2;
}

export function money(usd) {
  if (usd === null || usd === undefined) return '–';
  return '$' + Number(usd).toFixed(2);
}

export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm' + (s % 60 ? String(s % 60).padStart(2, '0') + 's' : '');
  const m = Math.floor(s / 60);
  if (m < 48 * 60) return Math.floor(m / 60) + 'h' + String(m % 60).padStart(2, '0') + 'm';
  return Math.floor(m / 1440) + 'd' + Math.floor((m % 1440) / 60) + 'h';
}

export function ago(time, now = Date.now()) {
  const t = Date.parse(time);
  if (Number.isNaN(t)) return '';
  const s = (now - t) / 1000;
  if (s < 5) return 'just now';
  // Past a minute, seconds are noise.
  return duration(s < 60 ? s : Math.floor(s / 60) * 60) + ' ago';
}

export function clock(time) {
  const t = new Date(time);
  if (Number.isNaN(t.getTime())) return '';
  return t.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

// eventText is an event in a line: its kind and then what swarm events says of it.
export function eventText(e) {
  const parts = [];
  if (e.iteration > 0) parts.push('iteration ' + e.iteration);
  for (const s of [e.how, e.reason, e.what, e.detail]) if (s) parts.push(s);
  if (e.by) parts.push('by ' + e.by);
  if (typeof e.cost_usd === 'number') parts.push(money(e.cost_usd));
  if (e.branch) parts.push(e.branch);
  if (e.commit) parts.push(e.commit.slice(0, 12));
  return parts.length ? e.kind + ': ' + parts.join(', ') : e.kind;
}

// needsAnswer says whether what a worker needs is a permission a yes or no answers.
export function needsAnswer(w) {
  const what = (w.needs_person && w.needs_person.what) || '';
  return what.startsWith('permission');
}
