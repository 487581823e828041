// The page's entry: routes the hash to a page, starts the event stream, shows its state.

import { fleetPage } from './fleet.js';
import { workerPage } from './worker.js';
import { nightPage } from './night.js';
import { wireDialog } from './actions.js';
import { onStatus, start } from './live.js';
import { message, replace } from './dom.js';

const main = document.getElementById('main');
let dispose = () => {};

function route() {
  dispose();
  const hash = location.hash || '#/';
  let page = 'fleet';
  if (hash.startsWith('#/w/')) {
    let name;
    try { name = decodeURIComponent(hash.slice(4)); } catch { name = ''; }
    page = 'worker';
    dispose = name ? workerPage(main, name) : (replace(main, message('No such worker.', 'error')), () => {});
  } else if (hash === '#/night') {
    page = 'night';
    dispose = nightPage(main);
  } else {
    dispose = fleetPage(main);
  }
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.route === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = (page === 'worker' ? main.querySelector('h1').textContent + ' · ' : page === 'night' ? 'Night · ' : '') + 'swarm';
}

const live = document.getElementById('live');
onStatus((s) => {
  live.textContent = s;
  live.className = 'live ' + s;
});
wireDialog();
window.addEventListener('hashchange', route);
route();
start();
