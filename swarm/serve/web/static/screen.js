// A worker's live screen, read-only: asked every couple of seconds while the page is in
// sight and the worker runs, and never otherwise.

import { get, workerPath } from './api.js';
import { el, replace } from './dom.js';
import { ago } from './words.js';

const every = 2000;
const lines = 60;

export function screenView(name, running) {
  const pre = el('pre', { class: 'screen', tabindex: '0', 'aria-label': 'Screen of ' + name }, 'Reading the screen…');
  const when = el('p', { class: 'small muted', 'aria-live': 'off' });
  let timer = null;
  let stopped = false;
  let live = running();

  async function look() {
    timer = null;
    if (stopped || document.visibilityState !== 'visible') return;
    try {
      const s = await get(workerPath(name, '/screen?lines=' + lines + '&colour=html'));
      show(pre, s);
      when.textContent = 'read ' + (ago(s.time) || 'now') + (live ? ', every ' + every / 1000 + ' s' : '');
    } catch (e) {
      replace(pre, 'The screen cannot be read: ' + e.message);
    }
    live = running();
    if (live && !stopped) timer = setTimeout(look, every);
  }

  const onVisible = () => { if (document.visibilityState === 'visible' && !timer) look(); };
  document.addEventListener('visibilitychange', onVisible);
  look();
  return {
    node: el('div', {}, pre, when),
    // wake looks again when the worker was seen to run again.
    wake() { live = running(); if (live && !timer) look(); },
    stop() { stopped = true; clearTimeout(timer); document.removeEventListener('visibilitychange', onVisible); },
  };
}

// show puts a screen on the page: the server's escaped HTML (its colours) when given, else
// its lines as text.
function show(pre, s) {
  if (typeof s.html === 'string') {
    // The one HTML the API gives: escaped by the server, colours as <span class=...>.
    pre.innerHTML = s.html;
    return;
  }
  pre.textContent = (s.lines || []).join('\n');
}
