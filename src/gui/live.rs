//! Live updates: Server-Sent Events. A [`Hub`] (one per engine session)
//! fans events out to the streams subscribed to it; each stream is one long
//! response written by its own thread straight to the socket, flushed per
//! event, so nothing waits in a buffer. A stream that stops reading loses
//! events (its queue is bounded) rather than making the server hold them.
//!
//! A browser gives all its tabs six HTTP/1.1 connections to one server, so
//! a stream per tab would stall the seventh tab's page loads. A channel
//! ([`Channels`]) is one stream that many sessions' hubs feed, each event
//! wrapped as `{"session": id, "data": …}`: the page's shared worker holds
//! one channel for every tab of the browser and routes the events by
//! session.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;

/// Events waiting for one slow tab at most; later ones are dropped for it.
const QUEUE: usize = 256;

/// A comment line this often keeps proxies from closing the stream and
/// finds tabs that went away.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// Streams open at once across the server.
pub const MAX_STREAMS: usize = 64;

static OPEN_STREAMS: AtomicUsize = AtomicUsize::new(0);

/// A stream fed by a hub: a session's own, or a channel (by its id).
struct Subscriber {
    channel: Option<String>,
    tx: SyncSender<String>,
}

/// One session's events and the streams that follow them.
pub struct Hub {
    session: String,
    subscribers: Mutex<Vec<Subscriber>>,
}

impl Hub {
    pub fn new(session: &str) -> Hub {
        Hub {
            session: session.to_string(),
            subscribers: Mutex::new(Vec::new()),
        }
    }

    /// A new stream's queue, or None when too many streams are open.
    pub fn subscribe(&self) -> Option<Receiver<String>> {
        if OPEN_STREAMS.load(Ordering::Relaxed) >= MAX_STREAMS {
            return None;
        }
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let subscriber = Subscriber { channel: None, tx };
        self.subscribers.lock().expect("hub lock").push(subscriber);
        Some(rx)
    }

    /// Feeds the channel `id` (once, however often it is asked).
    pub fn attach(&self, id: &str, tx: SyncSender<String>) {
        let mut subscribers = self.subscribers.lock().expect("hub lock");
        if !subscribers.iter().any(|s| s.channel.as_deref() == Some(id)) {
            let channel = Some(id.to_string());
            subscribers.push(Subscriber { channel, tx });
        }
    }

    /// Stops feeding the channel `id` (the tab left or stopped listening).
    pub fn detach(&self, id: &str) {
        let mut subscribers = self.subscribers.lock().expect("hub lock");
        subscribers.retain(|s| s.channel.as_deref() != Some(id));
    }

    /// Sends `data` as an event named `event` to every subscriber: as it is
    /// to the session's own streams, wrapped with the session to channels.
    pub fn publish(&self, event: &str, data: &Value) {
        let own = event_text(event, data);
        let wrapped = event_text(event, &json!({"session": self.session, "data": data}));
        self.subscribers.lock().expect("hub lock").retain(|s| {
            let text = if s.channel.is_some() { &wrapped } else { &own };
            !matches!(
                s.tx.try_send(text.clone()),
                Err(TrySendError::Disconnected(_))
            )
        });
    }

    /// Sends one event to the channel `id` only (a newly attached one
    /// learns the state the others already have).
    pub fn publish_to(&self, id: &str, event: &str, data: &Value) {
        let wrapped = event_text(event, &json!({"session": self.session, "data": data}));
        let subscribers = self.subscribers.lock().expect("hub lock");
        if let Some(s) = subscribers
            .iter()
            .find(|s| s.channel.as_deref() == Some(id))
        {
            let _ = s.tx.try_send(wrapped);
        }
    }

    pub fn subscribers(&self) -> usize {
        self.subscribers.lock().expect("hub lock").len()
    }
}

/// The channels open now, by id: where `POST /api/listen` finds the queue
/// to attach a session to. A channel is removed when its stream ends.
#[derive(Default)]
pub struct Channels {
    open: Mutex<HashMap<String, SyncSender<String>>>,
    counter: AtomicU64,
}

impl Channels {
    /// A new channel: its id and its queue, or None when too many streams
    /// are open.
    pub fn open(&self, tag: u32) -> Option<(String, Receiver<String>)> {
        if OPEN_STREAMS.load(Ordering::Relaxed) >= MAX_STREAMS {
            return None;
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = format!("c{n}-{tag:08x}");
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        self.open
            .lock()
            .expect("channels lock")
            .insert(id.clone(), tx);
        Some((id, rx))
    }

    /// The queue of the open channel `id`.
    pub fn sender(&self, id: &str) -> Option<SyncSender<String>> {
        self.open.lock().expect("channels lock").get(id).cloned()
    }

    pub fn close(&self, id: &str) {
        self.open.lock().expect("channels lock").remove(id);
    }
}

/// Writes the stream's response head, then every event from `events` as
/// it comes, until the tab goes away or the hub drops the sender.
/// `first` is sent at once (the state the tab starts from).
pub fn stream(mut out: Box<dyn Write + Send>, events: Receiver<String>, first: Option<String>) {
    OPEN_STREAMS.fetch_add(1, Ordering::Relaxed);
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n";
    let mut send = |text: &str| out.write_all(text.as_bytes()).and_then(|_| out.flush());
    let mut alive = send(head).is_ok() && first.is_none_or(|f| send(&f).is_ok());
    while alive {
        alive = match events.recv_timeout(KEEPALIVE) {
            Ok(event) => send(&event).is_ok(),
            Err(RecvTimeoutError::Timeout) => send(": keepalive\n\n").is_ok(),
            Err(RecvTimeoutError::Disconnected) => false,
        };
    }
    OPEN_STREAMS.fetch_sub(1, Ordering::Relaxed);
}

pub fn open_streams() -> usize {
    OPEN_STREAMS.load(Ordering::Relaxed)
}

/// One event's text, for the first event of a stream.
pub fn event_text(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}
