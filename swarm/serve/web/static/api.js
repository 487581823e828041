// Speaking to the server's API: same origin, its cookie, JSON both ways.

export class APIError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

async function call(method, path, body) {
  const opts = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new APIError(0, 'the server did not answer: ' + e.message);
  }
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    if (res.ok) throw new APIError(res.status, 'the server answered something that is not JSON');
  }
  if (!res.ok) {
    const why = data && typeof data.error === 'string' ? data.error : res.status + ' ' + res.statusText;
    throw new APIError(res.status, why);
  }
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body || {});

// ref is how the API names a worker: NAME on this machine, NAME@HOST on another.
export function ref(w) {
  return w.host && w.host !== 'local' ? w.name + '@' + w.host : w.name;
}

// workerPath is a worker's URL under the API, its name escaped as one path segment.
export function workerPath(name, rest = '') {
  return '/api/v1/workers/' + encodeURIComponent(name) + rest;
}

let server = null;

// serverInfo is /api/v1/server, asked once per page load.
export function serverInfo() {
  if (!server) server = get('/api/v1/server').catch((e) => { server = null; throw e; });
  return server;
}
