// What the night's colours and patterns mean: one class per kind of ending, said in words
// in the legend and in every mark's title, so colour is never the only carrier.

import { el } from './dom.js';
import { svg } from './svg.js';

const classes = {
  done: 'done', ended: 'ended', failed: 'failed', rolled_back: 'failed', checks_failed: 'failed',
  timed_out: 'timeout', hung: 'timeout', usage_limit: 'limit', budget: 'ended', stopped: 'ended',
};

export function outcomeClass(outcome) {
  return classes[outcome] || 'ended';
}

export function outcomeWord(outcome) {
  return String(outcome || 'ended').replaceAll('_', ' ');
}

const entries = [
  ['bar o-done', 'done (its claim held)'],
  ['bar o-ended', 'ended (quiet, turn over, context full, stopped)'],
  ['bar o-failed', 'failed, rolled back or checks failed (solid red)'],
  ['bar o-timeout', 'timed out or hung (striped)'],
  ['bar o-api', 'API error (dotted)'],
  ['bar o-limit', 'ended on a usage limit'],
  ['bar wait', 'waiting on a usage limit (hatched, thin)'],
  ['mark landed', 'landed (filled dot at the top)'],
  ['mark sentback', 'sent back (dot at the bottom)'],
];

export function legend() {
  return el('ul', { class: 'legend', 'aria-label': 'What the timeline\'s colours mean' },
    entries.map(([cls, words]) => el('li', {}, swatch(cls), words)));
}

function swatch(cls) {
  const mark = cls.startsWith('mark')
    ? svg('g', { class: cls }, svg('line', { x1: 9, x2: 9, y1: 0, y2: 16 }),
      svg('circle', { cx: 9, cy: cls.includes('landed') ? 4 : 12, r: 4 }))
    : svg('rect', { x: 0, y: cls === 'bar wait' ? 4 : 1, width: 18, height: cls === 'bar wait' ? 8 : 14, class: cls });
  return svg('svg', { width: 18, height: 16, class: 'swatch', 'aria-hidden': 'true' }, mark);
}
