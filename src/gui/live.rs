//! Live updates: Server-Sent Events. A [`Hub`] fans events out to the tabs
//! subscribed to it; each subscription is one long response written by its
//! own thread straight to the socket, flushed per event, so nothing waits
//! in a buffer. A tab that stops reading loses events (its queue is
//! bounded) rather than making the server hold them.

use serde_json::Value;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
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

#[derive(Default)]
pub struct Hub {
    subscribers: Mutex<Vec<SyncSender<String>>>,
}

impl Hub {
    /// A new subscriber's queue, or None when too many streams are open.
    pub fn subscribe(&self) -> Option<Receiver<String>> {
        if OPEN_STREAMS.load(Ordering::Relaxed) >= MAX_STREAMS {
            return None;
        }
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        self.subscribers.lock().expect("hub lock").push(tx);
        Some(rx)
    }

    /// Sends `data` as an event named `event` to every subscriber.
    pub fn publish(&self, event: &str, data: &Value) {
        let text = event_text(event, data);
        self.subscribers.lock().expect("hub lock").retain(|tx| {
            !matches!(
                tx.try_send(text.clone()),
                Err(TrySendError::Disconnected(_))
            )
        });
    }

    pub fn subscribers(&self) -> usize {
        self.subscribers.lock().expect("hub lock").len()
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
