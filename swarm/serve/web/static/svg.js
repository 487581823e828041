// Building SVG: elements by createElementNS, every text by textContent.

const NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c) node.append(c);
  }
  return node;
}

// title is what a mark says when pointed at, and to a screen reader.
export function title(text) {
  const t = document.createElementNS(NS, 'title');
  t.textContent = text;
  return t;
}

export function text(attrs, words) {
  const t = svg('text', attrs);
  t.textContent = words;
  return t;
}

// pct is a share of a window as an SVG length.
export function pct(x) {
  return (Math.max(0, Math.min(1, x)) * 100).toFixed(3) + '%';
}
