// Building elements. Every text goes in through textContent: nothing the API says is ever
// parsed as HTML here.

// el makes an element: attrs are attributes (a function value for "on..." is a listener),
// children are nodes or strings (made text nodes), null and false are left out.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
}

export function append(node, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}

// replace puts children in place of what node holds.
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

// button is a button of at least a finger's size with a name that reads out.
export function button(label, onclick, attrs = {}) {
  return el('button', { type: 'button', onclick, ...attrs }, label);
}

// section is a titled part of a page; its heading names it for screen readers.
let sections = 0;
export function section(title, ...children) {
  const id = 'sec-' + (++sections);
  return el('section', { 'aria-labelledby': id }, el('h2', { id }, title), ...children);
}

// dl is a list of terms and their values, skipping empty values.
export function dl(pairs, attrs = {}) {
  const list = el('dl', attrs);
  for (const [term, value] of pairs) {
    if (value === null || value === undefined || value === '') continue;
    append(list, [el('dt', {}, term), el('dd', {}, value)]);
  }
  return list;
}

// message is a line saying something went wrong (or is empty), for a screen reader too.
export function message(text, kind = 'note') {
  return el('p', { class: 'msg ' + kind, role: kind === 'error' ? 'alert' : null }, text);
}
