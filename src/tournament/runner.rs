//! Running a whole match: a pool of worker threads plays the schedule, the
//! calling thread gathers results, writes records, shows progress and stops
//! the run when the SPRT is decided or a signal arrives.
//!
//! Each worker keeps its own engine processes and reuses them from game to
//! game (`uginewgame`/`ucinewgame` in between), which is what makes
//! thousands of short games cheap; a process that misbehaved is killed and a
//! fresh one started for the worker's next game, so one crash never leaks
//! into another game.
//!
//! Memory does not grow with the number of games: a finished game goes to
//! the records file and the tallies (and to the caller's `on_game`), and is
//! then dropped.

use super::cli::MatchConfig;
use super::game::{self, Forfeit, GameReport, Termination, TimeControl};
use super::progress::Progress;
use super::resume::{self, RunId};
use super::schedule::{self, Job};
use crate::client::engine_process::{EngineError, EngineProcess};
use crate::client::interrupt;
use crate::client::live::LiveGames;
use crate::client::records::{GameRecord, GameResult};
use crate::results::stats::{self, SprtResult};
use crate::results::tally::PairTally;
use crate::rules::{Outcome, Player};
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
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
    /// Per engine: processes killed after misbehaving (and so restarted if
    /// they had more games to play).
    pub restarts: Vec<(String, usize)>,
    pub sprt: Option<SprtResult>,
    /// Games in this run's share of the schedule.
    pub scheduled: usize,
    /// Games finished by this invocation.
    pub played: usize,
    /// Games of an interrupted run taken from the records file.
    pub resumed: usize,
    pub elapsed: Duration,
    /// Stopped by SIGINT or SIGTERM.
    pub interrupted: bool,
    pub run: RunId,
}

/// What workers share.
struct Shared<'a> {
    config: &'a MatchConfig,
    run: &'a RunId,
    jobs: &'a [Job],
    next: AtomicUsize,
    stop: AtomicBool,
    restarts: Vec<AtomicUsize>,
    /// The games in progress, beside the records file (with `--pgn`).
    live: Option<LiveGames>,
}

/// Plays the match; `on_game` sees every finished game (in finishing order).
pub fn run_match(
    config: &MatchConfig,
    on_game: &mut dyn FnMut(&PlayedGame),
) -> Result<MatchReport> {
    interrupt::install();
    preflight(config)?;
    let started = Instant::now();
    let pairings = schedule::pairings(config.engines.len(), config.format);
    let mut tallies: Vec<PairTally> = pairings
        .iter()
        .map(|p| PairTally::new(&config.engines[p.a].name, &config.engines[p.b].name))
        .collect();
    // Locked before resuming reads it: another run writing the same file
    // would see this run's games as its own, and this run its games.
    let mut records = open_records(config)?;
    let (run, done) = resume_state(config, &mut tallies)?;
    announce_records(config, &run);
    let share: Vec<Job> =
        schedule::jobs(&pairings, config.rounds, config.openings.len(), config.seed)
            .into_iter()
            .filter(|job| config.shard.is_none_or(|s| s.holds(job)))
            .collect();
    let scheduled = share.len();
    let jobs: Vec<Job> = share
        .into_iter()
        .filter(|job| !done.contains(&job.index))
        .collect();
    let shared = Shared {
        config,
        run: &run,
        jobs: &jobs,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        restarts: config.engines.iter().map(|_| AtomicUsize::new(0)).collect(),
        live: config
            .pgn
            .as_ref()
            .map(|path| LiveGames::new(path, run.tag(), config.rules.variant().spec())),
    };
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut progress = Progress::new(scheduled, done.len(), !config.quiet);
    let mut sprt = config.sprt.as_ref().map(|test| tallies[0].sprt(test));
    if sprt.is_some_and(|r| r.decision.is_some()) {
        shared.stop.store(true, Ordering::Relaxed);
    }
    let mut played = 0;
    thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::channel();
        for _ in 0..config.concurrency.min(jobs.len()) {
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || worker(shared, tx));
        }
        drop(tx);
        loop {
            let received = rx.recv_timeout(Duration::from_millis(100));
            if let Some(live) = &shared.live {
                live.flush(false);
            }
            let game = match received {
                Ok(game) => game,
                Err(RecvTimeoutError::Timeout) => {
                    if interrupt::requested() {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let tally = &mut tallies[game.job.pairing];
            tally.add(
                &pair_key(&game.job),
                outcome_for_a(&game),
                &game.termination.code(),
            );
            if let Some(file) = records.as_mut() {
                file.write_all(game.record.write().as_bytes())
                    .and_then(|_| file.flush())
                    .context("writing the records file")?;
            }
            if let Some(live) = &shared.live {
                // The game leaves the sidecar once it is in the records (a
                // viewer that still sees it there finds it recorded).
                live.end(game.job.index + 1);
            }
            played += 1;
            on_game(&game);
            if let Some(test) = &config.sprt {
                let result = tallies[0].sprt(test);
                if result.decision.is_some() {
                    shared.stop.store(true, Ordering::Relaxed);
                }
                sprt = Some(result);
            }
            if config.show_games {
                progress.game_line(&game);
            }
            progress.update(&tallies, sprt.as_ref());
            if config.rating_interval > 0 && progress.done().is_multiple_of(config.rating_interval)
            {
                progress.interim(&interim_report(config, &names, &tallies));
            }
        }
        Ok(())
    })?;
    progress.finish();
    let restarts = config
        .engines
        .iter()
        .zip(&shared.restarts)
        .map(|(e, n)| (e.name.clone(), n.load(Ordering::Relaxed)))
        .collect();
    Ok(MatchReport {
        tallies,
        restarts,
        sprt,
        scheduled,
        played,
        resumed: done.len(),
        elapsed: started.elapsed(),
        interrupted: interrupt::requested(),
        run,
    })
}

/// The statistics every `--rating-interval` games.
fn interim_report(config: &MatchConfig, names: &[String], tallies: &[PairTally]) -> String {
    let mut out = String::new();
    for tally in tallies {
        out += &tally.report(config.sprt.as_ref());
    }
    if names.len() > 2 {
        out += &crate::results::standings::report(names, tallies, config.anchor.as_deref());
    }
    out
}

/// The run's identity, and the games of an interrupted run to resume
/// (added to `tallies`, in schedule order as a live run adds them).
fn resume_state(
    config: &MatchConfig,
    tallies: &mut [PairTally],
) -> Result<(RunId, HashSet<usize>)> {
    let fresh = RunId::new(
        config.seed,
        resume::fingerprint(&config.describe()),
        config.shard,
    );
    let Some(path) = config.pgn.as_ref().filter(|_| config.resume) else {
        return Ok((fresh, HashSet::new()));
    };
    let Some(resumed) = resume::load(path, &fresh)? else {
        log::info!("{}: nothing to resume, starting the run", path.display());
        return Ok((fresh, HashSet::new()));
    };
    let mut games = resumed.games;
    games.sort_by_key(|g| g.number);
    let pairings = schedule::pairings(config.engines.len(), config.format);
    let jobs = schedule::jobs(&pairings, config.rounds, config.openings.len(), config.seed);
    let mut done = HashSet::new();
    for game in &games {
        let Some(job) = game.number.checked_sub(1).and_then(|i| jobs.get(i)) else {
            bail!(
                "{}: game {} is not in the schedule",
                path.display(),
                game.number
            );
        };
        if let Some(shard) = config.shard.filter(|s| !s.holds(job)) {
            bail!(
                "{}: game {} is not in share {}/{} of the match",
                path.display(),
                game.number,
                shard.index + 1,
                shard.count
            );
        }
        let Some(white_outcome) = stats::Outcome::of_white(game.result) else {
            continue;
        };
        if !done.insert(job.index) {
            continue; // written twice; counted once
        }
        let outcome = if job.swapped {
            white_outcome.flipped()
        } else {
            white_outcome
        };
        tallies[job.pairing].add(&pair_key(job), outcome, &game.termination);
    }
    eprintln!(
        "resuming run {} from {}: {} games already played",
        resumed.run.tag(),
        path.display(),
        done.len()
    );
    Ok((resumed.run, done))
}

/// Starts each engine once, so a wrong command, a failed handshake, a bad
/// option or other rules stop the run before any game instead of
/// forfeiting every game.
fn preflight(config: &MatchConfig) -> Result<()> {
    if let Some(dir) = config.engines.iter().find_map(|e| e.log_dir.as_ref()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    for engine in &config.engines {
        EngineProcess::start(engine, &config.rules, config.handshake_timeout)
            .with_context(|| format!("engine '{}'", engine.name))?
            .quit();
    }
    Ok(())
}

/// Opens the records file for appending, with an exclusive lock held until
/// the run ends: two runs (two shards, or a run and its own `--resume`)
/// writing one file would each take the other's games for its own.
fn open_records(config: &MatchConfig) -> Result<Option<File>> {
    let Some(path) = &config.pgn else {
        return Ok(None);
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "{} is being written by another run (another shard or match on this machine or a shared volume): give each run its own --pgn, or wait for it to end",
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// Says so when the records file already holds games (of another run,
/// unless resuming this one).
fn announce_records(config: &MatchConfig, run: &RunId) {
    let Some(path) = &config.pgn else {
        return;
    };
    let existing = std::fs::metadata(path).map_or(0, |m| m.len());
    if existing > 0 && !config.quiet {
        eprintln!(
            "appending to {} ({existing} bytes already); this run's records are tagged Run \"{}\"",
            path.display(),
            run.tag()
        );
    }
}

fn worker(shared: &Shared, results: Sender<PlayedGame>) {
    let mut engines: Vec<Option<EngineProcess>> =
        shared.config.engines.iter().map(|_| None).collect();
    while !shared.stop.load(Ordering::Relaxed) && !interrupt::requested() {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = shared.jobs.get(index) else {
            break;
        };
        let Some(report) = play_job(shared, job, &mut engines) else {
            break; // interrupted: the game is not recorded
        };
        let played = PlayedGame {
            job: *job,
            record: record(shared.config, shared.run, job, &report),
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
/// made ready forfeits. Misbehaving processes are dropped (killed). None
/// when interrupted.
fn play_job(
    shared: &Shared,
    job: &Job,
    engines: &mut [Option<EngineProcess>],
) -> Option<GameReport> {
    let config = shared.config;
    let sides = [(Player::White, job.white), (Player::Black, job.black)];
    for (side, index) in sides {
        match ready(config, index, &mut engines[index]) {
            Ok(()) => {}
            Err(EngineError::Interrupted) => return None,
            Err(error) => {
                discard(shared, engines, index);
                return Some(forfeit_before_play(config, job, side, error));
            }
        }
    }
    let [white, black] = engines
        .get_disjoint_mut([job.white, job.black])
        .expect("a pairing has two different engines");
    let (Some(white), Some(black)) = (white.as_mut(), black.as_mut()) else {
        unreachable!("both engines were made ready above");
    };
    let opening = &config.openings[job.opening];
    let controls = [config.control(job.white), config.control(job.black)];
    let number = job.index + 1;
    let live = shared.live.as_ref();
    if let Some(live) = live {
        let start = opening
            .game(&config.rules)
            .expect("openings are checked when loaded");
        live.begin(
            number,
            &config.engines[job.white].name,
            &config.engines[job.black].name,
            config.rules.position_text(start.start()),
            controls.map(|c| c.to_string()),
        );
    }
    let report = game::play(
        &config.rules,
        opening,
        &config.timing,
        controls,
        &config.adjudication,
        [white, black],
        &mut |moves, clocks| {
            if let Some(live) = live {
                live.moves(number, moves, clocks);
            }
        },
    );
    let Some(report) = report else {
        // Interrupted: the game is not recorded, nor shown any longer.
        if let Some(live) = live {
            live.end(number);
        }
        return None;
    };
    if let Some(side) = report.failed {
        discard(shared, engines, sides[side.index()].1);
    }
    Some(report)
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
    let moves: Vec<String> = opening.moves().iter().map(|m| rules.move_text(m)).collect();
    GameReport {
        termination: Termination::Forfeit { loser: side, why },
        comments: vec![String::new(); moves.len()],
        moves,
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

/// `Hash=16 Style=random`: an engine's options as its record shows them.
fn options_text(options: &[(String, String)]) -> String {
    options
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The game's record: the standard tags (Event, Site, Date, Round, White,
/// Black, Result, TimeControl, FEN), enough to replay it (variant spec,
/// every move) and to rescore or resume it (run, game number, pair).
fn record(config: &MatchConfig, run: &RunId, job: &Job, report: &GameReport) -> GameRecord {
    let opening = &config.openings[job.opening];
    let start = opening
        .game(&config.rules)
        .expect("openings are checked when loaded");
    let mut r = GameRecord {
        moves: report.moves.clone(),
        comments: report.comments.clone(),
        result: match report.termination.outcome() {
            Outcome::Win(Player::White) => GameResult::WhiteWins,
            Outcome::Win(Player::Black) => GameResult::BlackWins,
            Outcome::Draw => GameResult::Draw,
        },
        ..GameRecord::default()
    };
    let (white, black) = (&config.engines[job.white], &config.engines[job.black]);
    let [white_tc, black_tc] = [config.control(job.white), config.control(job.black)];
    r.set_tag("Event", &config.event);
    r.set_tag("Site", &config.site);
    r.set_tag("Date", resume::utc_now().pgn_date());
    r.set_tag("Round", (job.round + 1).to_string());
    r.set_tag("White", &white.name);
    r.set_tag("Black", &black.name);
    r.set_tag("Run", run.tag());
    r.set_tag("Game", (job.index + 1).to_string());
    // The whole match's size, so that a merge of shards can tell a share
    // that is short (its task failed) from one that is complete.
    r.set_tag("Scheduled", scheduled_games(config).to_string());
    r.set_tag("Pair", pair_key(job));
    r.set_tag("Variant", config.rules.variant().spec());
    if white_tc == black_tc {
        r.set_tag("TimeControl", white_tc.pgn());
    } else {
        r.set_tag("WhiteTimeControl", white_tc.pgn());
        r.set_tag("BlackTimeControl", black_tc.pgn());
    }
    if !white_tc.is_clock() || !black_tc.is_clock() {
        r.set_tag("Limit", limit_text(white_tc, black_tc));
    }
    if !white.options.is_empty() {
        r.set_tag("WhiteOptions", options_text(&white.options));
    }
    if !black.options.is_empty() {
        r.set_tag("BlackOptions", options_text(&black.options));
    }
    r.set_tag("FEN", config.rules.position_text(start.start()));
    r.set_tag("Opening", opening.describe());
    r.set_tag("Plies", report.moves.len().to_string());
    r.set_tag("Termination", report.termination.code());
    r.set_tag("Reason", report.termination.to_string());
    r
}

/// Games in the whole match (every share).
fn scheduled_games(config: &MatchConfig) -> usize {
    schedule::pairings(config.engines.len(), config.format).len() * config.rounds * 2
}

/// A fixed per-move limit, which PGN's TimeControl cannot say.
fn limit_text(white: TimeControl, black: TimeControl) -> String {
    if white == black {
        white.to_string()
    } else {
        format!("{white} / {black}")
    }
}
