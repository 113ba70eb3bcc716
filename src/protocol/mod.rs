//! The UGI/UCI line protocol on stdin/stdout (protocol.md is the reference).
//!
//! - `command`: one input line into a typed `Command`.
//! - `options`: the generic option table (`option …` lines, `setoption`).
//! - `settings`: this engine's options and what they map to.
//! - `session`: the state between commands and what each command does.
//! - `searching`: running searches, `info` lines, exactly one `bestmove`.
//! - `output`: the single locked, flushed writer and the result line formats.
//! - `display`: `d`, `eval` and `moves` text.
//! - `watchdog`: enforces the hard time limit of timed searches.
//! - this file: the input loop.

pub mod command;
pub mod display;
pub mod options;
pub mod output;
pub mod searching;
pub mod session;
pub mod settings;
pub mod watchdog;

use output::Output;
use session::{Flow, Session};
use std::io::{BufRead, ErrorKind};

/// Lines longer than this are refused whole: no real command is near it (a
/// position with a thousand moves is about 6 KB), and reading without a
/// bound would let one endless line exhaust memory.
const MAX_LINE_BYTES: usize = 1 << 20;

/// Runs the engine protocol on stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    run(std::io::stdin().lock(), Output::stdout())
}

/// Runs the protocol on any input (tests use byte buffers). End of input
/// counts as `quit`: a running search is stopped and its `bestmove` printed.
pub fn run(mut input: impl BufRead, out: Output) -> anyhow::Result<()> {
    let mut session = Session::new(out.clone());
    let mut line = Vec::new();
    loop {
        match read_line(&mut input, &mut line) {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong) => {
                out.error(&format!("line longer than {MAX_LINE_BYTES} bytes ignored"))
            }
            Ok(Line::Text) => {
                // Non-UTF-8 bytes become U+FFFD: the command is then unknown
                // or malformed and gets its error line like any other.
                let text = String::from_utf8_lossy(&line);
                if session.handle(&text) == Flow::Quit {
                    break;
                }
            }
            Err(e) => {
                log::error!("reading stdin: {e}");
                break;
            }
        }
    }
    session.quit();
    Ok(())
}

/// Runs protocol commands given up front (`yote exec …`), then exits. Unlike
/// end of input in the interactive loop, a `go` with limits is allowed to
/// finish, so `yote exec "go depth 6"` prints a real `bestmove`.
pub fn run_commands(commands: &[String]) -> anyhow::Result<()> {
    let mut session = Session::new(Output::stdout());
    for command in commands {
        if session.handle(command) == Flow::Quit {
            break;
        }
    }
    session.finish_commands();
    session.quit();
    Ok(())
}

enum Line {
    Text,
    TooLong,
    Eof,
}

/// Reads one line (without its `\n`) into `buf`, bounded by `MAX_LINE_BYTES`:
/// the rest of an overlong line is skipped, never stored.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (too_long, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::Eof,
                (false, false) => Line::Text,
            });
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let data = &chunk[..if done { used - 1 } else { used }];
        if buf.len() + data.len() > MAX_LINE_BYTES {
            too_long = true;
            buf.clear();
        } else if !too_long {
            buf.extend_from_slice(data);
        }
        input.consume(used);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Text });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_bounded() {
        let mut data = b"uci\r\nisready\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        data.extend(b"\nlast");
        let mut input = std::io::BufReader::with_capacity(1000, &data[..]);
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        loop {
            match read_line(&mut input, &mut buf).unwrap() {
                Line::Eof => break,
                Line::TooLong => seen.push("<too long>".to_string()),
                Line::Text => seen.push(String::from_utf8_lossy(&buf).into_owned()),
            }
        }
        assert_eq!(seen, ["uci\r", "isready", "<too long>", "last"]);
    }
}
