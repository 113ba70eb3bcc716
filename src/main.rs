//! The `yote` binary: with no subcommand it is an engine speaking UGI/UCI on
//! stdin/stdout; subcommands run one job and exit.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;
use yote::rules::{Rules, Variant, divide, divide_full, perft, perft_full};

#[derive(Parser)]
#[command(
    name = "yote",
    version,
    about = "A Yoté engine (UGI/UCI), perft, bench and match runner",
    long_about = "A Yoté engine (UGI/UCI), perft, bench and match runner.\n\n\
        With no subcommand, `yote` is the engine: it reads protocol commands \
        (uci, ugi, position, go, ...) on standard input and answers on \
        standard output (protocol.md). Each subcommand runs one job and exits."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences to a depth (Stockfish-style divide output).
    Perft {
        depth: u32,
        /// Rules: a preset name and/or key=value overrides, e.g. `6x6,multi_jump=true`.
        #[arg(long, default_value = "standard")]
        variant: String,
        /// Position text; the variant's start position if absent.
        #[arg(long)]
        fen: Option<String>,
        /// Print only the total and the speed, not the per-move split.
        #[arg(long)]
        total: bool,
        /// Play every move, the last ply included, instead of counting the
        /// last plies in bulk: the same counts, at the speed of move
        /// generation and apply (the make/unmake benchmark).
        #[arg(long)]
        full: bool,
    },
    /// Search the fixed bench positions; prints the node count (the engine's
    /// signature) and the speed.
    Bench {
        #[arg(default_value_t = yote::search::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Search features changed from the defaults, as the SearchFeatures
        /// option (e.g. `-nnue`: the fitted evaluation's speed and node count).
        #[arg(long, default_value = "", allow_hyphen_values = true)]
        features: String,
    },
    /// Run engine protocol commands, one per argument, then exit; e.g.
    /// `yote exec "position startpos moves @c3" d "go depth 6"`.
    Exec {
        #[arg(required = true)]
        commands: Vec<String>,
    },
    /// Play engines against each other (flags and examples: docs/match.md).
    Match(yote::tournament::MatchArgs),
    /// Search every position of recorded games and annotate every move:
    /// score, best line, and a mark on inaccuracies, mistakes and blunders.
    Analyse(yote::analysis::cli::AnalyseArgs),
    /// Endgame tablebases: generate, inspect, probe, verify (docs/tablebases.md).
    Tb {
        #[command(subcommand)]
        command: yote::tablebase::cli::TbCommand,
    },
    /// Solve a whole (small) variant from its start position with tables.
    Solve(yote::tablebase::cli::SolveArgs),
    /// Fit the evaluation's weights to recorded games (docs/search.md).
    Tune(yote::tuning::tune::TuneArgs),
    /// Training positions for the network from self-play: seeded,
    /// resumable and shardable (docs/search.md, "The network").
    Datagen(yote::tuning::datagen::DatagenArgs),
    /// A data file's search scores given again by a deeper search
    /// (docs/search.md, "The network").
    Relabel(yote::tuning::relabel::RelabelArgs),
    /// Tune the search parameters by SPSA through the match runner
    /// (docs/search.md).
    Spsa(yote::tuning::spsa::SpsaArgs),
    /// A Yoté front end in the browser: play, analyse, review and watch,
    /// against any UGI engine (docs/gui.md).
    Gui(yote::gui::GuiArgs),
}

/// An error is the user's to read: one line of what went wrong and why,
/// never the program's backtrace (which `RUST_BACKTRACE=1` would add to
/// the `Result` that `main` returns).
fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    exit_quietly_on_a_closed_pipe();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `yote perft 4 | head -1`: once the reader has gone, the output is not
/// wanted, and the job ends there without a word, as `head`'s other
/// writers do. Rust ignores SIGPIPE, so a write fails with EPIPE instead
/// of ending the process; `println!` then panics (with a backtrace under
/// RUST_BACKTRACE), on whatever thread printed. This hook, installed once
/// before any subcommand runs, turns exactly that panic into a quiet exit;
/// every other panic keeps the default report. SIGPIPE itself stays
/// ignored: the match runner and the front end write to engines that may
/// have died, and must hear EPIPE, not die of it.
fn exit_quietly_on_a_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        let broken = std::io::Error::from(std::io::ErrorKind::BrokenPipe).to_string();
        let os_broken = std::io::Error::from_raw_os_error(libc::EPIPE).to_string();
        if message.starts_with("failed printing to std")
            && (message.ends_with(&broken) || message.ends_with(&os_broken))
        {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// Whether a subcommand's error is its output pipe closed under it (one
/// that writes with `?` rather than `println!`).
fn closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        None => yote::protocol::run_stdio(),
        Some(Command::Bench { depth, features }) => {
            let options = yote::search::SearchOptions {
                features: yote::search::alphabeta::Features::parse(&features)?,
                ..Default::default()
            };
            let report = yote::search::bench::run_with(depth, &options, &Default::default())
                .expect("an unstopped bench finishes");
            println!("Nodes searched: {}", report.nodes);
            println!("Nodes/second: {}", report.nodes_per_second());
            Ok(())
        }
        Some(Command::Exec { commands }) => yote::protocol::run_commands(&commands),
        Some(Command::Match(args)) => yote::tournament::run(args),
        Some(Command::Analyse(args)) => yote::analysis::cli::run(args),
        Some(Command::Tb { command }) => yote::tablebase::cli::run_tb(command),
        Some(Command::Solve(args)) => yote::tablebase::cli::run_solve(args),
        Some(Command::Tune(args)) => yote::tuning::tune::run(args),
        Some(Command::Datagen(args)) => yote::tuning::datagen::run(args),
        Some(Command::Relabel(args)) => yote::tuning::relabel::run(args),
        Some(Command::Spsa(args)) => yote::tuning::spsa::run(args),
        Some(Command::Gui(args)) => yote::gui::run(args),
        Some(Command::Perft {
            depth,
            variant,
            fen,
            total,
            full,
        }) => run_perft(depth, &variant, fen.as_deref(), total, full),
    }
}

fn run_perft(
    depth: u32,
    variant: &str,
    fen: Option<&str>,
    total_only: bool,
    full: bool,
) -> Result<()> {
    let rules = Rules::new(Variant::from_spec(variant)?)?;
    let pos = match fen {
        Some(text) => rules
            .parse_position(text)
            .with_context(|| format!("position '{text}'"))?,
        None => rules.start_position(),
    };
    let start = Instant::now();
    let nodes = if total_only {
        match full {
            true => perft_full(&rules, &pos, depth),
            false => perft(&rules, &pos, depth),
        }
        .with_context(|| format!("perft {depth}"))?
    } else {
        let split = match full {
            true => divide_full(&rules, &pos, depth),
            false => divide(&rules, &pos, depth),
        }
        .with_context(|| format!("perft {depth}"))?;
        for (mv, n) in &split {
            println!("{}: {n}", rules.move_text(mv));
        }
        println!();
        if depth == 0 {
            1
        } else {
            split.iter().map(|(_, n)| n).sum()
        }
    };
    let elapsed = start.elapsed();
    println!("Nodes searched: {nodes}");
    eprintln!(
        "perft {depth}: {:.3} s, {:.0} nodes/s",
        elapsed.as_secs_f64(),
        nodes as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    Ok(())
}
