// Talking to the server: JSON in and out, errors carried as exceptions
// with the server's message, and one live event stream per tab.

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `HTTP ${status}`);
    this.status = status;
    this.engine = body && body.engine;
  }
}

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = typeof body === 'string' ? 'text/plain' : 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});

let session = null;
let source = null;
const listeners = {};

export function on(event, handler) {
  (listeners[event] ??= []).push(handler);
  if (source) source.addEventListener(event, (e) => handler(JSON.parse(e.data)));
}

// The tab's engine session, made once. Its event stream is open only while
// something streams (an analysis): a browser allows six connections to one
// server over HTTP/1.1, shared by all its tabs, so idle tabs hold none.
export async function openSession() {
  if (!session) session = (await post('/api/session')).id;
  return session;
}

export async function listen() {
  await openSession();
  if (!source) connect();
}

export function unlisten() {
  source?.close();
  source = null;
}

function connect() {
  source = new EventSource(`/api/events?session=${session}`);
  for (const [event, handlers] of Object.entries(listeners)) {
    for (const h of handlers) source.addEventListener(event, (e) => h(JSON.parse(e.data)));
  }
  const conn = document.getElementById('conn');
  source.onopen = () => { conn.textContent = 'live'; };
  source.onerror = () => {
    conn.textContent = '';
    // Closed for good: the session was closed by the server (idle too long).
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      session = null;
    }
  };
}

window.addEventListener('pagehide', unlisten);

export function sessionId() { return session; }
