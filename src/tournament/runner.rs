//! Running a whole match: a pool of worker threads plays the schedule, the
//! calling thread gathers results, writes records, shows progress and stops
//! the run when the SPRT is decided.
//!
//! Each worker keeps its own engine processes and reuses them from game to
//! game (`uginewgame`/`ucinewgame` in between), which is what makes
//! thousands of short games cheap; a process that misbehaved is killed and a
//! fresh one started for the worker's next game, so one crash never leaks
//! into another game.

use super::cli::MatchConfig;
use super::engine_process::{EngineError, EngineProcess};
use super::game::{self, Forfeit, GameReport, Termination};
use super::progress::Progress;
use super::records::{GameRecord, GameResult};
use super::schedule::{self, Job};
use super::stats::{self, SprtResult};
use super::tally::PairTally;
use crate::rules::{Outcome, Player};
use anyhow::{Context, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// One played game.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub job: Job,
    pub termination: Termination,
    pub record: GameRecord,
}

#[derive(Debug)]
pub struct MatchReport {
    /// One per pairing, in schedule order.
    pub tallies: Vec<PairTally>,
    /// In schedule order (not finishing order).
    pub games: Vec<PlayedGame>,
    /// Per engine: processes killed after misbehaving (and so restarted if
    /// they had more games to play).
    pub restarts: Vec<(String, usize)>,
    pub sprt: Option<SprtResult>,
    pub scheduled: usize,
    pub elapsed: Duration,
}

/// What workers share.
struct Shared<'a> {
    config: &'a MatchConfig,
    jobs: &'a [Job],
    next: AtomicUsize,
    stop: AtomicBool,
    restarts: Vec<AtomicUsize>,
}

pub fn run_match(config: &MatchConfig) -> Result<MatchReport> {
    preflight(config)?;
    let started = Instant::now();
    let pairings = schedule::pairings(config.engines.len(), config.format);
    let jobs = schedule::jobs(&pairings, config.rounds, config.openings.len(), config.seed);
    let mut tallies: Vec<PairTally> = pairings
        .iter()
        .map(|p| PairTally::new(&config.engines[p.a].name, &config.engines[p.b].name))
        .collect();
    let mut records = open_records(config)?;
    let shared = Shared {
        config,
        jobs: &jobs,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        restarts: config.engines.iter().map(|_| AtomicUsize::new(0)).collect(),
    };
    let progress = Progress::new(jobs.len(), !config.quiet);
    let mut games = Vec::new();
    let mut sprt = None;
    thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::channel();
        for _ in 0..config.concurrency.min(jobs.len()) {
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || worker(shared, tx));
        }
        drop(tx);
        for played in rx {
            let tally = &mut tallies[played.job.pairing];
            tally.add(
                &pair_key(&played.job),
                outcome_for_a(&played),
                &played.termination.code(),
            );
            if let Some(file) = records.as_mut() {
                file.write_all(played.record.write().as_bytes())
                    .context("writing the records file")?;
            }
            games.push(played);
            if let Some(test) = &config.sprt {
                let result = tallies[0].sprt(test);
                if result.decision.is_some() {
                    shared.stop.store(true, Ordering::Relaxed);
                }
                sprt = Some(result);
            }
            progress.update(games.len(), &tallies[0], sprt.as_ref());
        }
        Ok(())
    })?;
    progress.finish();
    games.sort_by_key(|g| g.job.index);
    let restarts = config
        .engines
        .iter()
        .zip(&shared.restarts)
        .map(|(e, n)| (e.name.clone(), n.load(Ordering::Relaxed)))
        .collect();
    Ok(MatchReport {
        tallies,
        games,
        restarts,
        sprt,
        scheduled: jobs.len(),
        elapsed: started.elapsed(),
    })
}

/// Starts each engine once, so a wrong command, a failed handshake or a
/// different variant stops the run before any game instead of forfeiting
/// every game.
fn preflight(config: &MatchConfig) -> Result<()> {
    for engine in &config.engines {
        EngineProcess::start(engine, &config.rules, config.handshake_timeout)
            .with_context(|| format!("engine '{}'", engine.name))?
            .quit();
    }
    Ok(())
}

fn open_records(config: &MatchConfig) -> Result<Option<File>> {
    config
        .pgn
        .as_ref()
        .map(|path| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))
        })
        .transpose()
}

fn worker(shared: &Shared, results: Sender<PlayedGame>) {
    let mut engines: Vec<Option<EngineProcess>> =
        shared.config.engines.iter().map(|_| None).collect();
    while !shared.stop.load(Ordering::Relaxed) {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = shared.jobs.get(index) else {
            break;
        };
        let report = play_job(shared, job, &mut engines);
        let played = PlayedGame {
            job: *job,
            record: record(shared.config, job, &report),
            termination: report.termination,
        };
        if results.send(played).is_err() {
            break;
        }
    }
    for engine in engines.into_iter().flatten() {
        engine.quit();
    }
}

/// Gets both engines ready and plays the game; an engine that cannot be
/// made ready forfeits. Misbehaving processes are dropped (killed).
fn play_job(shared: &Shared, job: &Job, engines: &mut [Option<EngineProcess>]) -> GameReport {
    let config = shared.config;
    let sides = [(Player::White, job.white), (Player::Black, job.black)];
    for (side, index) in sides {
        if let Err(error) = ready(config, index, &mut engines[index]) {
            discard(shared, engines, index);
            return forfeit_before_play(config, job, side, error);
        }
    }
    let [white, black] = engines
        .get_disjoint_mut([job.white, job.black])
        .expect("a pairing has two different engines");
    let (Some(white), Some(black)) = (white.as_mut(), black.as_mut()) else {
        unreachable!("both engines were made ready above");
    };
    let opening = &config.openings[job.opening];
    let report = game::play(
        &config.rules,
        opening,
        &config.timing,
        &config.adjudication,
        [white, black],
    );
    if let Some(side) = report.failed {
        discard(shared, engines, sides[side.index()].1);
    }
    report
}

fn ready(
    config: &MatchConfig,
    index: usize,
    slot: &mut Option<EngineProcess>,
) -> Result<(), EngineError> {
    let timeout = config.handshake_timeout;
    if slot.is_none() {
        *slot = Some(EngineProcess::start(
            &config.engines[index],
            &config.rules,
            timeout,
        )?);
    }
    slot.as_mut().expect("started above").new_game(timeout)
}

fn discard(shared: &Shared, engines: &mut [Option<EngineProcess>], index: usize) {
    if engines[index].take().is_some() {
        shared.restarts[index].fetch_add(1, Ordering::Relaxed);
    }
}

fn forfeit_before_play(
    config: &MatchConfig,
    job: &Job,
    side: Player,
    error: EngineError,
) -> GameReport {
    let why = match error {
        EngineError::Timeout { .. } => Forfeit::Hang(error.to_string()),
        EngineError::Garbage(_) => Forfeit::Garbage(error.to_string()),
        _ => Forfeit::Crash(error.to_string()),
    };
    let rules = &config.rules;
    let opening = config.openings[job.opening]
        .game(rules)
        .expect("openings are checked when loaded");
    GameReport {
        termination: Termination::Forfeit { loser: side, why },
        moves: opening.moves().iter().map(|m| rules.move_text(m)).collect(),
        failed: Some(side),
    }
}

/// Games of one opening share this key (the pentanomial pair).
fn pair_key(job: &Job) -> String {
    format!("{}.{}", job.pairing + 1, job.round + 1)
}

fn outcome_for_a(played: &PlayedGame) -> stats::Outcome {
    let a_colour = if played.job.swapped {
        Player::Black
    } else {
        Player::White
    };
    match played.termination.outcome() {
        Outcome::Draw => stats::Outcome::Draw,
        Outcome::Win(p) if p == a_colour => stats::Outcome::Win,
        Outcome::Win(_) => stats::Outcome::Loss,
    }
}

/// The game's record: enough tags to replay it (FEN of the start, variant
/// spec, every move) and to rescore it (names, result, pair).
fn record(config: &MatchConfig, job: &Job, report: &GameReport) -> GameRecord {
    let opening = &config.openings[job.opening];
    let start = opening
        .game(&config.rules)
        .expect("openings are checked when loaded");
    let mut r = GameRecord {
        moves: report.moves.clone(),
        result: match report.termination.outcome() {
            Outcome::Win(Player::White) => GameResult::WhiteWins,
            Outcome::Win(Player::Black) => GameResult::BlackWins,
            Outcome::Draw => GameResult::Draw,
        },
        ..GameRecord::default()
    };
    r.set_tag("Event", "yote match");
    r.set_tag("Game", (job.index + 1).to_string());
    r.set_tag("Pair", pair_key(job));
    r.set_tag("White", &config.engines[job.white].name);
    r.set_tag("Black", &config.engines[job.black].name);
    r.set_tag("Variant", config.rules.variant().spec());
    r.set_tag("TimeControl", config.timing.control.to_string());
    r.set_tag("FEN", config.rules.position_text(start.start()));
    r.set_tag("Opening", opening.describe());
    r.set_tag("Plies", report.moves.len().to_string());
    r.set_tag("Termination", report.termination.code());
    r.set_tag("Reason", report.termination.to_string());
    r
}
