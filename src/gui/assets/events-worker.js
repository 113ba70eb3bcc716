// One event stream for every tab of this browser (a SharedWorker), and
// the heartbeat of every tab's session.
//
// A browser gives all its tabs six HTTP/1.1 connections to one server; a
// stream per analysing tab would leave the seventh tab's page loads
// waiting. This worker holds one stream, `/api/channel`, attaches each
// tab's session to it (`POST /api/listen`) and hands every event, which
// the server wraps as {session, data}, to the tabs of that session. The
// stream is closed when no tab listens any more.
//
// Heartbeats: a hidden tab's timers run once a minute (Chrome, after five
// minutes hidden) and a frozen tab's not at all, too late for the server,
// which stops a page's engines 15 s after it last heard of it; this
// worker's timers run on time. A tab holds the Web Lock `yote-tab-<session>`
// while it lives; every 5 s the worker beats for each session whose lock
// is held, and closes the session of a tab whose lock went without an
// `unbeat` (the tab crashed or was killed: no pagehide beacon), so its
// engines end then and not never.

const EVENTS = ['engines', 'engine', 'info', 'analysis'];
const tabs = new Map(); // session -> Set of ports
let source = null;
let channel = null;

self.onconnect = (e) => {
  const port = e.ports[0];
  port.onmessage = (m) => {
    if (m.data.listen) listen(m.data.listen, port);
    if (m.data.unlisten) unlisten(m.data.unlisten, port);
    if (m.data.beat) beating.set(m.data.beat, port);
    if (m.data.unbeat) beating.delete(m.data.unbeat);
  };
  port.start();
};

const BEAT_MS = 5000;
const beating = new Map(); // session -> the port of its tab

setInterval(async () => {
  if (!beating.size) return;
  let held;
  try {
    held = new Set((await navigator.locks.query()).held.map((l) => l.name));
  } catch (_) {
    held = null; // no answer: every session is taken as alive this time
  }
  for (const [session, port] of beating) {
    if (held && !held.has(`yote-tab-${session}`)) {
      beating.delete(session);
      unlisten(session, port);
      post('/api/close', { session }).catch(() => {});
      continue;
    }
    post('/api/heartbeat', { session }).then(() => port.postMessage({ beaten: session }), (e) => {
      // The server closed it (evicted): the tab makes a new one.
      if (e.status === 404) {
        beating.delete(session);
        port.postMessage({ gone: session });
      }
    });
  }
}, BEAT_MS);

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    const data = await response.json().catch(() => null);
    const error = new Error(data?.error ?? `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
}

function listen(session, port) {
  if (!tabs.has(session)) tabs.set(session, new Set());
  tabs.get(session).add(port);
  if (!source) open();
  // Attached now if the channel is known, else when it is announced.
  if (channel) attach(session, [port]);
}

function unlisten(session, port) {
  const ports = tabs.get(session);
  if (!ports) return;
  ports.delete(port);
  if (ports.size) return;
  tabs.delete(session);
  if (channel) post('/api/unlisten', { channel, session }).catch(() => {});
  if (!tabs.size) {
    source?.close();
    source = null;
    channel = null;
    broadcast({ connection: '' });
  }
}

async function attach(session, ports) {
  try {
    await post('/api/listen', { channel, session });
    for (const port of ports) port.postMessage({ attached: session });
  } catch (e) {
    for (const port of ports) port.postMessage({ attached: session, error: e.message });
  }
}

function open() {
  source = new EventSource('/api/channel');
  // Each (re)connection is a new channel: every session is attached to it.
  source.addEventListener('channel', (e) => {
    channel = JSON.parse(e.data).id;
    for (const [session, ports] of tabs) attach(session, [...ports]);
  });
  for (const name of EVENTS) {
    source.addEventListener(name, (e) => {
      const { session, data } = JSON.parse(e.data);
      for (const port of tabs.get(session) ?? []) port.postMessage({ event: name, session, data });
    });
  }
  source.onopen = () => broadcast({ connection: 'live' });
  source.onerror = () => {
    channel = null;
    broadcast({ connection: '' });
    // Refused for good (not a reconnection): the tabs are told.
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      for (const [session, ports] of tabs) {
        for (const port of ports) port.postMessage({ attached: session, error: 'the event stream was refused' });
      }
      tabs.clear();
    }
  };
}

function broadcast(message) {
  for (const ports of tabs.values()) for (const port of ports) port.postMessage(message);
}
