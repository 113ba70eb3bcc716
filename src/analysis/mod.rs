//! Game analysis: every position of recorded games searched, every move
//! judged by what it lost.
//!
//! Records come in through `tournament::records` (the match runner's files)
//! or as plain move lists; each position is searched on its own with a fresh
//! table, so a `nodes` or `depth` limit gives the same answer whatever the
//! number of workers or the order they run in. Finished positions go to a
//! journal as they come, so an interrupted run picks up where it stopped.

pub mod cli;
pub mod journal;
pub mod judge;

use crate::rules::{Game, GameEnd, Move, MoveError, Outcome, Position, PositionError, Rules};
use crate::rules::{Variant, VariantError};
use crate::search::tables::Tables;
use crate::search::{Engine, Limits, Score, SearchEvent, SearchOptions, SearchRequest};
use crate::tablebase;
use crate::tournament::records::{GameRecord, GameResult};
use judge::{MoveJudgement, Tally, Value};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// A recorded game made playable: its rules, start and moves checked.
#[derive(Clone, Debug)]
pub struct GameInput {
    pub record: GameRecord,
    pub rules: Rules,
    pub start: Position,
    pub moves: Vec<Move>,
}

/// Why a recorded game cannot be analysed.
#[derive(Debug)]
pub enum InputError {
    Variant {
        game: usize,
        error: VariantError,
    },
    Position {
        game: usize,
        error: PositionError,
    },
    Move {
        game: usize,
        ply: usize,
        text: String,
        error: MoveError,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Variant { game, error } => write!(f, "game {game}: Variant tag: {error}"),
            InputError::Position { game, error } => write!(f, "game {game}: FEN tag: {error}"),
            InputError::Move {
                game,
                ply,
                text,
                error,
            } => {
                write!(f, "game {game}: ply {ply}: move '{text}': {error}")
            }
        }
    }
}

impl std::error::Error for InputError {}

impl GameInput {
    /// Checks a record against the rules: its `Variant` tag (else
    /// `default_variant`), its `FEN` tag (else the start position) and every
    /// move. `game` is the 1-based number used in errors.
    pub fn from_record(
        record: GameRecord,
        default_variant: &Variant,
        game: usize,
    ) -> Result<GameInput, InputError> {
        let variant = match record.tag("Variant") {
            Some(spec) => {
                Variant::from_spec(spec).map_err(|error| InputError::Variant { game, error })?
            }
            None => *default_variant,
        };
        let rules = Rules::new(variant).map_err(|error| InputError::Variant { game, error })?;
        let start = match record.tag("FEN") {
            Some(text) => rules
                .parse_position(text)
                .map_err(|error| InputError::Position { game, error })?,
            None => rules.start_position(),
        };
        let mut replay = Game::from_position(rules.clone(), start);
        let mut moves = Vec::with_capacity(record.moves.len());
        for (index, text) in record.moves.iter().enumerate() {
            let mv = replay.play_text(text).map_err(|error| InputError::Move {
                game,
                ply: index + 1,
                text: text.clone(),
                error,
            })?;
            moves.push(mv);
        }
        Ok(GameInput {
            record,
            rules,
            start,
            moves,
        })
    }

    /// The game as it stood before ply `ply` (0 = the start).
    pub fn game_at(&self, ply: usize) -> Game {
        let mut game = Game::from_position(self.rules.clone(), self.start);
        for mv in &self.moves[..ply] {
            game.play(mv);
        }
        game
    }
}

/// What the search found in one position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReport {
    /// For the player to move in that position.
    pub value: Value,
    pub depth: u32,
    pub nodes: u64,
    /// The best move and the line, in move text; empty when the game is over.
    pub pv: Vec<String>,
}

impl PositionReport {
    fn game_over(end: GameEnd, pos: &Position) -> PositionReport {
        let value = match end.outcome {
            Outcome::Draw => Value::Draw,
            Outcome::Win(p) if p == pos.side_to_move() => Value::Win(0),
            Outcome::Win(_) => Value::Loss(0),
        };
        PositionReport {
            value,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        }
    }
}

/// How to search each position.
#[derive(Clone)]
pub struct Settings {
    pub limits: Limits,
    /// Positions searched at once, one search thread each.
    pub workers: usize,
    pub hash_mb: usize,
    /// Endgame tables (none by default): positions they hold get their
    /// exact value, and the search plays from them perfectly.
    pub tables: Tables,
}

/// One position to search: game index (0-based) and ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job {
    pub game: usize,
    pub ply: usize,
}

/// Every position of every game: before each move, and the final one.
pub fn jobs(games: &[GameInput]) -> Vec<Job> {
    games
        .iter()
        .enumerate()
        .flat_map(|(game, input)| (0..=input.moves.len()).map(move |ply| Job { game, ply }))
        .collect()
}

/// Searches `todo` on `settings.workers` threads and hands each finished
/// position to `done` on the calling thread, in the order they finish.
pub fn search_positions(
    games: &[GameInput],
    todo: &[Job],
    settings: &Settings,
    mut done: impl FnMut(Job, PositionReport),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..settings.workers.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut engine = Engine::new(SearchOptions {
                    hash_mb: settings.hash_mb,
                    tables: settings.tables.clone(),
                    ..SearchOptions::default()
                });
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&job) = todo.get(index) else { break };
                    let game = games[job.game].game_at(job.ply);
                    let mut report = search_one(&mut engine, &game, &settings.limits);
                    if let Some(exact) = table_value(&settings.tables, &game) {
                        report.value = exact;
                    }
                    if tx.send((job, report)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (job, report) in rx {
            done(job, report);
        }
    });
}

/// One position, searched from a clean table so that the result depends on
/// the position and the limits alone.
pub fn search_one(engine: &mut Engine, game: &Game, limits: &Limits) -> PositionReport {
    if let Some(end) = game.status() {
        return PositionReport::game_over(end, game.position());
    }
    engine.new_game();
    let (tx, rx) = mpsc::channel();
    let request = SearchRequest {
        limits: limits.clone(),
        searchmoves: Vec::new(),
    };
    engine.go(game, request, move |event| {
        let _ = tx.send(event);
    });
    let rules = game.rules();
    let mut report = PositionReport {
        value: Value::Cp(0),
        depth: 0,
        nodes: 0,
        pv: Vec::new(),
    };
    for event in rx {
        match event {
            SearchEvent::Info(info) if info.multipv == 1 => {
                report.value = value_of(info.score);
                report.depth = info.depth;
                report.nodes = info.nodes;
                report.pv = info.pv.iter().map(|m| rules.move_text(m)).collect();
            }
            SearchEvent::Info(_) => {}
            SearchEvent::Done(result) => {
                report.nodes = report.nodes.max(result.nodes);
                if let Some(best) = result.best {
                    let best = rules.move_text(&best);
                    if report.pv.first() != Some(&best) {
                        report.pv = vec![best];
                    }
                }
            }
        }
    }
    engine.wait();
    report
}

/// The tables' value of `game`'s position, where they hold it and the
/// history rules cannot change it.
fn table_value(tables: &Tables, game: &Game) -> Option<Value> {
    let prober = tables.prober(game.rules())?;
    Some(match prober.value(game.position(), game.keys())? {
        tablebase::Value::Win(d) => Value::Win(u32::from(d)),
        tablebase::Value::Loss(d) => Value::Loss(u32::from(d)),
        tablebase::Value::Draw => Value::Draw,
    })
}

/// A search score as a value: mates in `n` own moves become wins in
/// `2n − 1` plies and losses in `2n` plies (exact without bonus turns).
fn value_of(score: Score) -> Value {
    match score {
        Score::Cp(c) => Value::Cp(c),
        Score::Mate(n) if n > 0 => Value::Win(2 * n.unsigned_abs() - 1),
        Score::Mate(n) => Value::Loss(2 * n.unsigned_abs()),
    }
}

/// One game judged move by move.
#[derive(Clone, Debug)]
pub struct GameAnalysis {
    pub judgements: Vec<MoveJudgement>,
    /// The report of the position after each move (what the comment shows).
    pub after: Vec<PositionReport>,
    /// Per player: index 0 White (player 1), 1 Black.
    pub tallies: [Tally; 2],
    /// The move that decided the game (ply index, 0-based), if any.
    pub decisive: Option<usize>,
    pub movers: Vec<usize>,
}

/// Judges every move of `input` from the reports of its positions
/// (`reports[ply]` for ply 0..=moves).
pub fn judge_game(input: &GameInput, reports: &[PositionReport]) -> GameAnalysis {
    let mut game = Game::from_position(input.rules.clone(), input.start);
    let mut judgements = Vec::with_capacity(input.moves.len());
    let mut tallies = [Tally::default(); 2];
    let mut movers = Vec::with_capacity(input.moves.len());
    for (ply, mv) in input.moves.iter().enumerate() {
        let mover = game.position().side_to_move();
        game.play(mv);
        let same_side = game.position().side_to_move() == mover;
        let after = reports[ply + 1].value;
        let played = if same_side { after } else { after.flip() };
        let judgement = judge::judge(reports[ply].value, played);
        let side = mover.index();
        tallies[side].add(&judgement);
        judgements.push(judgement);
        movers.push(side);
    }
    let decisive = decisive_error(&input.record, &judgements, &movers);
    GameAnalysis {
        judgements,
        after: reports[1..].to_vec(),
        tallies,
        decisive,
        movers,
    }
}

/// The loser's costliest move in a decided game; in a drawn game, the
/// costliest move that let a better result slip (a mistake or worse).
fn decisive_error(
    record: &GameRecord,
    judgements: &[MoveJudgement],
    movers: &[usize],
) -> Option<usize> {
    let loser = match record.result {
        GameResult::WhiteWins => Some(1),
        GameResult::BlackWins => Some(0),
        GameResult::Draw | GameResult::Unfinished => None,
    };
    let candidates = judgements
        .iter()
        .enumerate()
        .filter(|(i, j)| match loser {
            Some(side) => movers[*i] == side,
            None => j.mark >= judge::Mark::Mistake,
        })
        .filter(|(_, j)| j.loss > 0.0);
    candidates
        .max_by(|a, b| a.1.loss.total_cmp(&b.1.loss).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i)
}

/// The comment written after a move: the value after it from the mover's
/// view with the search depth, the mark and the better move when the move
/// lost something, then the engine's line from the new position.
pub fn move_comment(
    judgement: &MoveJudgement,
    after: &PositionReport,
    best: &PositionReport,
) -> String {
    let mut text = format!("{}/{}", judgement.played, after.depth);
    if judgement.mark != judge::Mark::Good {
        text.push_str(&format!(
            " {} {}",
            judgement.mark.symbol(),
            judgement.mark.name()
        ));
        if let Some(better) = best.pv.first() {
            text.push_str(&format!(", best {better} {}", judgement.best));
        }
    }
    if !after.pv.is_empty() {
        text.push_str("; ");
        text.push_str(&after.pv.join(" "));
    }
    text
}
