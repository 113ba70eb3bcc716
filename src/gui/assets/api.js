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
const listeners = {};

export function on(event, handler) {
  (listeners[event] ??= []).push(handler);
}

function dispatch(event, data) {
  for (const h of listeners[event] ?? []) h(data);
}

// The tab's engine session, made once. Its events come only while
// something streams (an analysis). A browser allows six connections to one
// server over HTTP/1.1, shared by all its tabs, so the tabs share one
// stream through a SharedWorker (events-worker.js); where there is none,
// the tab opens a stream of its own.
export async function openSession() {
  if (!session) {
    session = (await post('/api/session')).id;
    beatFromWorker(session);
  }
  return session;
}

let listening = null; // a promise: resolved once events flow
let port = null;
let source = null;
let attached = null;
// Events of another session (none, unless routing is wrong); for tests.
window.yoteStrayEvents = 0;

export async function listen() {
  await openSession();
  listening ??= typeof SharedWorker === 'function' ? viaWorker() : viaOwnStream();
  try {
    await listening;
  } catch (e) {
    listening = null;
    // The server closed the session (idle too long): the next try makes one.
    if (e.message.startsWith('no session')) session = null;
    throw e;
  }
}

export function unlisten() {
  if (port && session) port.postMessage({ unlisten: session });
  source?.close();
  source = null;
  listening = null;
}

function connection(text) {
  document.getElementById('conn').textContent = text;
}

function workerPort() {
  if (!port) {
    port = new SharedWorker('/assets/events-worker.js', { name: 'yote-events' }).port;
    port.onmessage = (m) => {
      const msg = m.data;
      if (msg.beaten !== undefined) {
        if (msg.beaten === session) workerBeat = performance.now();
        return;
      }
      if (msg.gone !== undefined) {
        // The server closed the session (evicted): the next call makes one.
        if (msg.gone === session) forget();
        return;
      }
      if ('connection' in msg) connection(msg.connection);
      if (msg.attached === session && attached) {
        const done = attached;
        attached = null;
        done(msg.error);
      }
      if (!msg.event) return;
      if (msg.session !== session) {
        window.yoteStrayEvents += 1;
        return;
      }
      dispatch(msg.event, msg.data);
    };
    port.start();
  }
  return port;
}

function viaWorker() {
  workerPort();
  return new Promise((resolve, reject) => {
    attached = (error) => (error ? reject(new Error(error)) : resolve());
    port.postMessage({ listen: session });
  });
}

function viaOwnStream() {
  source = new EventSource(`/api/events?session=${session}`);
  for (const event of ['engines', 'engine', 'info', 'analysis']) {
    source.addEventListener(event, (e) => dispatch(event, JSON.parse(e.data)));
  }
  source.onopen = () => connection('live');
  source.onerror = () => {
    connection('');
    // Closed for good: the session was closed by the server (idle too long).
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      session = null;
      listening = null;
    }
  };
  return Promise.resolve();
}

// The server stops a page's engines 15 s after its last request unless
// the page streams; a Play page waiting for a person's move neither
// streams nor asks, so it says it is still open, every 5 s.
//
// A page's own timers are not to be trusted for that: Chrome runs a
// hidden tab's timers once a minute after five minutes hidden, and none
// at all in a frozen tab, while a shared worker's run on time (measured:
// docs/gui.md). So where there are SharedWorker and Web Locks the shared
// worker beats for every tab: the tab holds a lock named after its
// session for as long as it lives, and the worker beats for each session
// whose lock is held and closes the session of a tab whose lock went (the
// tab crashed or was killed, without its pagehide beacon). The page still
// beats itself where the worker has not said it beat for this tab within
// two beats and a half (no SharedWorker or Web Locks, as on a phone's
// Chrome; or the worker died with another tab's crashed renderer).
const HEARTBEAT_MS = 5000;
let beatsInWorker = false;
let workerBeat = 0; // when the shared worker last beat for this tab
let releaseLock = null;

function forget() {
  session = null;
  listening = null;
  beatsInWorker = false;
  releaseLock?.();
  releaseLock = null;
}

function beatFromWorker(id) {
  if (typeof SharedWorker !== 'function' || !navigator.locks) return;
  beatsInWorker = true;
  const worker = workerPort();
  navigator.locks.request(`yote-tab-${id}`, () => new Promise((release) => {
    if (session !== id) { release(); return; }
    releaseLock = release;
    // Told once the lock is held, so the worker never finds it missing.
    workerBeat = performance.now();
    worker.postMessage({ beat: id });
  })).catch(() => { if (session === id) beatsInWorker = false; });
}

setInterval(() => {
  if (!session || (beatsInWorker && performance.now() - workerBeat < 2.5 * HEARTBEAT_MS)) return;
  post('/api/heartbeat', { session }).catch((e) => {
    // Closed by the server (idle too long): the next engine call makes one.
    if (e.status === 404) forget();
  });
}, HEARTBEAT_MS);

// A closing page ends its engines now rather than 15 s later. sendBeacon
// is the one request a browser still sends on the way out (a same-origin
// POST of text/plain, which the server reads as JSON like any body).
window.addEventListener('pagehide', () => {
  unlisten();
  if (session) {
    port?.postMessage({ unbeat: session });
    navigator.sendBeacon('/api/close', JSON.stringify({ session }));
  }
  // Back from the back/forward cache, the page makes a new session.
  forget();
});

export function sessionId() { return session; }
