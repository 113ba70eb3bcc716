//! Reading the input: bounded lines, read on a thread of their own.
//!
//! `perft` and `bench` run in the foreground (their output is one block and
//! the next command waits for them), yet `stop`, `quit` and the end of input
//! must end them at once: a GUI that closes must not leave a busy process
//! behind. So the reader thread looks at every line as it arrives and raises
//! the interrupt flag when one of those comes after the command that is
//! running; the main thread executes the lines in order as before.

use super::command::{self, Command};
use crate::search::Signals;
use std::io::{BufRead, ErrorKind};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};

/// Lines longer than this are refused whole: no real command is near it (a
/// position with a thousand moves is about 6 KB), and reading without a
/// bound would let one endless line exhaust memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Lines read ahead of the command being executed; the reader waits when
/// this many are queued, so a flood of input is held in at most this many
/// lines of memory.
const QUEUE_LINES: usize = 64;

pub enum Line {
    /// The line as text: bytes that are not UTF-8 read as U+FFFD, and a
    /// leading byte-order mark dropped (see `text_of`).
    Text(String),
    TooLong,
    Eof,
}

/// Which input line interrupts the foreground command: numbers are the
/// lines' places in the input, so a `stop` read before its command starts
/// still counts, and one read after it never stops a later command.
#[derive(Default)]
struct Sequence {
    /// The line being executed.
    current: u64,
    /// The last `stop`, `quit` or end of input seen.
    last_interrupt: u64,
}

#[derive(Clone)]
pub struct Interrupt {
    sequence: Arc<Mutex<Sequence>>,
    /// Raised while the line being executed has an interrupt after it.
    signals: Arc<Signals>,
}

impl Interrupt {
    fn new() -> Interrupt {
        Interrupt {
            sequence: Arc::default(),
            signals: Arc::default(),
        }
    }

    /// The flag foreground commands poll (its `stop`).
    pub fn signals(&self) -> Arc<Signals> {
        Arc::clone(&self.signals)
    }

    /// The main thread starts executing line `seq`.
    pub fn begin(&self, seq: u64) {
        let mut s = self.sequence.lock().unwrap_or_else(|e| e.into_inner());
        s.current = seq;
        self.signals
            .stop
            .store(s.last_interrupt > seq, Ordering::SeqCst);
    }

    /// The reader saw an interrupting line `seq` (`quit`: a quit or the end
    /// of input).
    fn raise(&self, seq: u64, quit: bool) {
        let mut s = self.sequence.lock().unwrap_or_else(|e| e.into_inner());
        s.last_interrupt = seq;
        if seq > s.current {
            self.signals.stop.store(true, Ordering::SeqCst);
            if quit {
                self.signals.quitting.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// Starts the reader thread: numbered lines come out of the receiver, the
/// end of input last.
pub fn spawn_reader(input: impl BufRead + Send + 'static) -> (Receiver<(u64, Line)>, Interrupt) {
    let (tx, rx) = sync_channel(QUEUE_LINES);
    let interrupt = Interrupt::new();
    let raiser = interrupt.clone();
    std::thread::spawn(move || {
        let mut input = input;
        let mut seq = 0;
        loop {
            seq += 1;
            let line = match read_line(&mut input) {
                Ok(Raw::Bytes(bytes)) => Line::Text(text_of(&bytes)),
                Ok(Raw::TooLong) => Line::TooLong,
                Ok(Raw::Eof) => Line::Eof,
                Err(e) => {
                    log::error!("reading input: {e}");
                    Line::Eof
                }
            };
            let eof = matches!(line, Line::Eof);
            match (eof, interrupts(&line)) {
                (true, _) => raiser.raise(u64::MAX, true),
                (false, Some(quit)) => raiser.raise(seq, quit),
                (false, None) => {}
            }
            if tx.send((seq, line)).is_err() || eof {
                return;
            }
        }
    });
    (rx, interrupt)
}

/// Whether `line` interrupts the foreground command: Some(true) for `quit`,
/// Some(false) for `stop`.
fn interrupts(line: &Line) -> Option<bool> {
    let Line::Text(text) = line else {
        return None;
    };
    match command::parse(text) {
        Ok(Command::Stop) => Some(false),
        Ok(Command::Quit) => Some(true),
        _ => None,
    }
}

/// The text of one input line, decoded once for everything that reads it
/// (the interrupt watcher, the parser, the session's error handling).
/// Non-UTF-8 bytes become U+FFFD: the command is then unknown or malformed
/// and gets its error line like any other. A byte-order mark at the start
/// is dropped here, where the line is read: some Windows GUIs send one,
/// and a mark left for later stages made the first token
/// `\u{feff}position`, which the parser accepted as `position` while the
/// session's refusal rules did not recognise it (issue 39).
fn text_of(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text.into_owned(),
    }
}

/// One line as read, before decoding.
enum Raw {
    Bytes(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads one line (without its `\n`), bounded by `MAX_LINE_BYTES`: the rest
/// of an overlong line is skipped, never stored.
fn read_line(input: &mut impl BufRead) -> std::io::Result<Raw> {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (too_long, buf.is_empty()) {
                (true, _) => Raw::TooLong,
                (false, true) => Raw::Eof,
                (false, false) => Raw::Bytes(buf),
            });
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let data = &chunk[..if done { used - 1 } else { used }];
        if buf.len() + data.len() > MAX_LINE_BYTES {
            too_long = true;
            buf = Vec::new();
        } else if !too_long {
            buf.extend_from_slice(data);
        }
        input.consume(used);
        if done {
            return Ok(if too_long {
                Raw::TooLong
            } else {
                Raw::Bytes(buf)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_bounded() {
        let mut data = "uci\r\n\u{feff}isready\n".as_bytes().to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        data.extend(b"\nlast");
        let mut input = std::io::BufReader::with_capacity(1000, &data[..]);
        let mut seen = Vec::new();
        loop {
            match read_line(&mut input).unwrap() {
                Raw::Eof => break,
                Raw::TooLong => seen.push("<too long>".to_string()),
                Raw::Bytes(buf) => seen.push(text_of(&buf)),
            }
        }
        assert_eq!(seen, ["uci\r", "isready", "<too long>", "last"]);
    }

    #[test]
    fn a_stop_read_early_still_interrupts_the_command_before_it() {
        let (lines, interrupt) = spawn_reader(&b"perft 9\nstop\nperft 2\n"[..]);
        let lines: Vec<_> = lines.iter().collect();
        assert_eq!(lines.len(), 4);
        interrupt.begin(1);
        assert!(interrupt.signals().stop.load(Ordering::SeqCst));
        interrupt.begin(2);
        // End of input (after line 3) interrupts everything before it.
        assert!(interrupt.signals().stop.load(Ordering::SeqCst));
    }
}
