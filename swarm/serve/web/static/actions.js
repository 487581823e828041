// A worker's actions: each a POST to the API whose answer (the command's output, or its
// error) is shown under the buttons. Kill and land ask first, in a dialog on the page.

import { post, workerPath } from './api.js';
import { button, el, replace } from './dom.js';
import { needsAnswer } from './words.js';

// out is where answers show; it outlives the redraws an action's events cause.
export function actionsView(name, w, loop, after, out) {
  const act = (what, body) => run(out, name, what, body, after);
  const buttons = el('div', { class: 'actions' });
  if (needsAnswer(w)) {
    buttons.append(
      button('Yes', () => act('answer', { answer: 'yes' }), { class: 'yes', 'aria-label': 'Answer yes to: ' + w.needs_person.what }),
      button('No', () => act('answer', { answer: 'no' }), { class: 'no', 'aria-label': 'Answer no to: ' + w.needs_person.what }));
  }
  if (loop) {
    buttons.append(
      button('Pause', () => act('pause'), { 'aria-label': 'Pause ' + name }),
      button('Resume', () => act('resume'), { 'aria-label': 'Resume ' + name }));
  }
  buttons.append(
    button('Land…', () => confirmThen(
      'Land ' + name + '?', 'Its branch is merged onto its target when its tests pass.', 'Land', () => act('land')),
    { 'aria-label': 'Land ' + name, 'aria-haspopup': 'dialog' }),
    button('Kill…', () => confirmThen(
      'Kill ' + name + '?', 'Its agent and its loop are ended. This cannot be undone.', 'Kill', () => act('kill')),
    { class: 'danger', 'aria-label': 'Kill ' + name, 'aria-haspopup': 'dialog' }));
  return el('div', { class: 'act' }, buttons, sendForm(name, act), out);
}

function sendForm(name, act) {
  const input = el('input', { type: 'text', id: 'send-line', name: 'line', autocomplete: 'off',
    maxlength: '4000', placeholder: 'a line for the agent' });
  const form = el('form', { class: 'send', action: '#' },
    el('label', { for: 'send-line' }, 'Send a line'),
    el('div', { class: 'inline' }, input, el('button', { type: 'submit', 'aria-label': 'Send the line to ' + name }, 'Send')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!input.value.trim()) { input.focus(); return; }
    if (await act('send', { line: input.value })) input.value = '';
  });
  return form;
}

async function run(out, name, what, body, after) {
  replace(out, el('p', { class: 'muted' }, what + '…'));
  try {
    const res = await post(workerPath(name, '/' + what), body);
    replace(out, el('p', { class: 'ok' }, what + ': done'),
      res && res.output ? el('pre', { class: 'cmd-out' }, res.output) : null);
    after();
    return true;
  } catch (e) {
    replace(out, el('p', { class: 'msg error', role: 'alert' }, what + ' failed: ' + e.message));
    return false;
  }
}

// outputView is where the answers to actions show.
export function outputView() {
  return el('div', { class: 'output', role: 'status', 'aria-live': 'polite' });
}

// confirmThen asks in the page's dialog, and does it only on a yes.
export function confirmThen(title, text, yes, then) {
  const dialog = document.getElementById('confirm');
  const opener = document.activeElement;
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  const ok = document.getElementById('confirm-ok');
  ok.textContent = yes;
  dialog.returnValue = '';
  dialog.addEventListener('close', () => {
    if (opener && opener.isConnected) opener.focus();
    if (dialog.returnValue === 'ok') then();
  }, { once: true });
  dialog.showModal();
  document.getElementById('confirm-cancel').focus();
}

// wireDialog makes the dialog's buttons close it with their answer, once per page.
export function wireDialog() {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-ok').addEventListener('click', () => dialog.close('ok'));
  document.getElementById('confirm-cancel').addEventListener('click', () => dialog.close('cancel'));
}
