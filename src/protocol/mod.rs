//! The UGI/UCI line protocol on stdin/stdout (protocol.md is the reference).
//!
//! - `command`: one input line into a typed `Command`.
//! - `options`: the generic option table (`option …` lines, `setoption`).
//! - `settings`: this engine's options and what they map to.
//! - `session`: the state between commands and what each command does.
//! - `searching`: running searches, `info` lines, exactly one `bestmove`.
//! - `output`: the single locked, flushed writer and the result line formats.
//! - `display`: `d`, `eval` and `moves` text.
//! - `input`: reads lines on a thread of its own; sees `stop`/`quit` early.
//! - this file: the input loop.

pub mod command;
pub mod display;
pub mod input;
pub mod options;
pub mod output;
pub mod searching;
pub mod session;
pub mod settings;

use input::Line;
use output::Output;
use session::{Flow, Session};
use std::io::BufRead;

/// Runs the engine protocol on stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    run(std::io::BufReader::new(std::io::stdin()), Output::stdout())
}

/// Runs the protocol on any input (tests use byte buffers). End of input
/// counts as `quit`: a running search is stopped and its `bestmove` printed.
///
/// Input is read on a thread of its own, so that `stop`, `quit` and end of
/// input reach the foreground commands (`perft`, `bench`) while they run.
pub fn run(input: impl BufRead + Send + 'static, out: Output) -> anyhow::Result<()> {
    let (lines, interrupt) = input::spawn_reader(input);
    let mut session = Session::with_interrupt(out.clone(), interrupt.signals());
    for (seq, line) in lines {
        interrupt.begin(seq);
        match line {
            Line::Eof => break,
            Line::TooLong => out.error(&format!(
                "line longer than {} bytes ignored",
                input::MAX_LINE_BYTES
            )),
            Line::Text(text) => {
                if session.handle(&text) == Flow::Quit {
                    break;
                }
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
