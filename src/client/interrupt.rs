//! SIGINT / SIGTERM: the runner stops starting games, aborts the ones in
//! play (their engines' process groups are killed), prints the results so
//! far and exits; the records file then holds only finished games, so
//! `--resume` replays exactly the aborted ones.
//!
//! The engines run in process groups of their own (so one kill reaches
//! everything an engine spawned), which also means a terminal's Ctrl-C no
//! longer reaches them: the runner must catch the signal and kill them
//! itself. The handler only stores to an atomic, the one thing a signal
//! handler may safely do; everything else polls [`requested`].

use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal received, or 0.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM (once per process).
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: the handler is async-signal-safe (one atomic store) and
        // lives for the whole program.
        unsafe {
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
    });
}

/// Whether SIGINT or SIGTERM arrived.
pub fn requested() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0
}

/// The exit status a shell expects after the signal: 128 + its number.
pub fn exit_code() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        signal => Some(128 + signal),
    }
}
