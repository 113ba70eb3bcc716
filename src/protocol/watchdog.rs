//! A timer that calls back once a deadline passes, unless disarmed first.
//!
//! The protocol promises that a timed search ends within its time whatever
//! the searcher does (a lost game on time is the worst thing an engine can
//! do), so it enforces the hard limit itself. One thread serves every search
//! of the session: arming replaces the previous deadline.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

#[derive(Default)]
struct State {
    /// When to fire, and the search it is for.
    deadline: Option<(Instant, u64)>,
    shutdown: bool,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    wake: Condvar,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct Watchdog {
    inner: Arc<Inner>,
}

impl Watchdog {
    /// Starts the timer thread; `on_expiry(id)` runs on it when the deadline
    /// armed for search `id` passes.
    pub fn new(on_expiry: impl Fn(u64) + Send + 'static) -> Watchdog {
        let inner = Arc::new(Inner::default());
        let thread_inner = Arc::clone(&inner);
        std::thread::spawn(move || run(&thread_inner, on_expiry));
        Watchdog { inner }
    }

    pub fn arm(&self, at: Instant, id: u64) {
        self.inner.lock().deadline = Some((at, id));
        self.inner.wake.notify_one();
    }

    pub fn disarm(&self) {
        self.inner.lock().deadline = None;
        self.inner.wake.notify_one();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.inner.lock().shutdown = true;
        self.inner.wake.notify_one();
    }
}

fn run(inner: &Inner, on_expiry: impl Fn(u64)) {
    let mut state = inner.lock();
    loop {
        if state.shutdown {
            return;
        }
        match state.deadline {
            None => state = inner.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
            Some((at, id)) => {
                let now = Instant::now();
                if now >= at {
                    state.deadline = None;
                    // The callback takes other locks: never hold ours then.
                    drop(state);
                    on_expiry(id);
                    state = inner.lock();
                } else {
                    state = inner
                        .wake
                        .wait_timeout(state, at - now)
                        .map(|(s, _)| s)
                        .unwrap_or_else(|e| e.into_inner().0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn fires_once_for_the_last_armed_deadline_only() {
        let (tx, rx) = channel();
        let dog = Watchdog::new(move |id| tx.send(id).unwrap());
        let now = Instant::now();
        dog.arm(now + Duration::from_millis(500), 1);
        dog.arm(now + Duration::from_millis(20), 2);
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(2));
        dog.arm(Instant::now() + Duration::from_millis(20), 3);
        dog.disarm();
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
    }
}
