//! Live updates: Server-Sent Events. A [`Hub`] (one per engine session)
//! fans events out to the streams subscribed to it; each stream is one long
//! response body ([`EventStream`]) that the HTTP server writes as events
//! come, with a comment line every [`KEEPALIVE`] so that a closed page is
//! found by the failed write within seconds (its body is then dropped and
//! its queue closed). A stream that stops reading loses events (its queue
//! is bounded) rather than making the server hold them.
//!
//! A browser gives all its tabs six HTTP/1.1 connections to one server, so
//! a stream per tab would stall the seventh tab's page loads. A channel
//! ([`Channels`]) is one stream that many sessions' hubs feed, each event
//! wrapped as `{"session": id, "data": …}`: the page's shared worker holds
//! one channel for every tab of the browser and routes the events by
//! session.

use hyper::body::{Body, Bytes, Frame};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc::{self, Receiver, Sender, error::TrySendError};
use tokio::time::{Instant, Sleep};

/// Events waiting for one slow tab at most; later ones are dropped for it.
const QUEUE: usize = 256;

/// A comment line this often keeps proxies from closing the stream and
/// finds tabs that went away: the write to a closed page fails, which ends
/// the stream and, with it, the page's claim on its engines.
pub const KEEPALIVE: Duration = Duration::from_secs(5);

/// Streams open at once across the server.
pub const MAX_STREAMS: usize = 64;

static OPEN_STREAMS: AtomicUsize = AtomicUsize::new(0);

/// A stream fed by a hub: a session's own, or a channel (by its id).
struct Subscriber {
    channel: Option<String>,
    tx: Sender<String>,
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
        let (tx, rx) = mpsc::channel(QUEUE);
        let subscriber = Subscriber { channel: None, tx };
        self.subscribers.lock().expect("hub lock").push(subscriber);
        Some(rx)
    }

    /// Feeds the channel `id` (once, however often it is asked).
    pub fn attach(&self, id: &str, tx: Sender<String>) {
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
            !matches!(s.tx.try_send(text.clone()), Err(TrySendError::Closed(_)))
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

    /// Streams still open (a closed page's stream is gone once its
    /// body was dropped, whether or not an event was sent since).
    pub fn subscribers(&self) -> usize {
        let mut subscribers = self.subscribers.lock().expect("hub lock");
        subscribers.retain(|s| !s.tx.is_closed());
        subscribers.len()
    }
}

/// The channels open now, by id: where `POST /api/listen` finds the queue
/// to attach a session to. A channel is removed when its stream ends.
#[derive(Default)]
pub struct Channels {
    open: Mutex<HashMap<String, Sender<String>>>,
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
        let (tx, rx) = mpsc::channel(QUEUE);
        self.open
            .lock()
            .expect("channels lock")
            .insert(id.clone(), tx);
        Some((id, rx))
    }

    /// The queue of the open channel `id`.
    pub fn sender(&self, id: &str) -> Option<Sender<String>> {
        self.open.lock().expect("channels lock").get(id).cloned()
    }

    pub fn close(&self, id: &str) {
        self.open.lock().expect("channels lock").remove(id);
    }
}

/// A stream's response body: `first` (the state the tab starts from),
/// then every event from the queue as it comes, and a keepalive comment
/// when none came for [`KEEPALIVE`]. It ends when the hub drops the
/// sender; when the page goes away the server drops it, which closes the
/// queue and runs `on_end`.
pub struct EventStream {
    events: Receiver<String>,
    first: Option<String>,
    keepalive: Pin<Box<Sleep>>,
    on_end: Option<Box<dyn FnOnce() + Send>>,
}

impl EventStream {
    pub fn new(
        events: Receiver<String>,
        first: Option<String>,
        on_end: Option<Box<dyn FnOnce() + Send>>,
    ) -> EventStream {
        OPEN_STREAMS.fetch_add(1, Ordering::Relaxed);
        EventStream {
            events,
            first,
            keepalive: Box::pin(tokio::time::sleep(KEEPALIVE)),
            on_end,
        }
    }

    fn frame(&mut self, text: String) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.keepalive.as_mut().reset(Instant::now() + KEEPALIVE);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(text)))))
    }
}

impl Body for EventStream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take() {
            return self.frame(first);
        }
        match self.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => return self.frame(event),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        match self.keepalive.as_mut().poll(cx) {
            Poll::Ready(()) => self.frame(": keepalive\n\n".to_string()),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.events.close();
        OPEN_STREAMS.fetch_sub(1, Ordering::Relaxed);
        if let Some(on_end) = self.on_end.take() {
            on_end();
        }
    }
}

pub fn open_streams() -> usize {
    OPEN_STREAMS.load(Ordering::Relaxed)
}

/// One event's text, for the first event of a stream.
pub fn event_text(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}
