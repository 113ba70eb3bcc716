//! Game analysis: every position of recorded games searched, every move
//! judged by what it lost.
//!
//! Records come in through `client::records` (the match runner's files)
//! or as plain move lists; each position is searched on its own with a fresh
//! table, so a `nodes` or `depth` limit gives the same answer whatever the
//! number of workers or the order they run in. Finished positions go to a
//! journal as they come, so an interrupted run picks up where it stopped.

pub mod cli;
pub mod journal;
pub mod judge;

use crate::client::records::{GameRecord, GameResult};
use crate::rules::{Game, Move, MoveError, Outcome, Position, PositionError, Rules};
use crate::rules::{Variant, VariantError};
use crate::search::tables::Tables;
use crate::search::{Engine, Limits, Score, SearchEvent, SearchInfo, SearchOptions, SearchRequest};
use crate::tablebase;
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

/// A value and the depth it was searched to (0: exact, from the game's
/// end or the tables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub value: Value,
    pub depth: u32,
}

impl fmt::Display for Scored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.depth {
            0 => write!(f, "{}", self.value),
            depth => write!(f, "{}/{depth}", self.value),
        }
    }
}

/// One played move weighed against the best move, both scored by one
/// search of the position before it, at the same depth, from the mover's
/// view.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    /// The search's best move (the played one when it found nothing better).
    pub best_move: String,
    pub best: Scored,
    pub played: Scored,
    /// The engine's line after the played move.
    pub line: Vec<String>,
    pub nodes: u64,
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

/// One move to judge: game index (0-based) and ply (0-based), searched in
/// the position before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job {
    pub game: usize,
    pub ply: usize,
}

/// Every move of every game.
pub fn jobs(games: &[GameInput]) -> Vec<Job> {
    games
        .iter()
        .enumerate()
        .flat_map(|(game, input)| (0..input.moves.len()).map(move |ply| Job { game, ply }))
        .collect()
}

/// Searches `todo` on `settings.workers` threads and hands each finished
/// move to `done` on the calling thread, in the order they finish.
pub fn search_moves(
    games: &[GameInput],
    todo: &[Job],
    settings: &Settings,
    mut done: impl FnMut(Job, MoveReport),
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
                    let input = &games[job.game];
                    let game = input.game_at(job.ply);
                    let played = input.moves[job.ply];
                    let mut report = judge_move(&mut engine, &game, played, &settings.limits);
                    exact_values(&settings.tables, &game, played, &mut report);
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

/// The played move (legal in `game`) and the best move, scored by one
/// search from a clean table, so that the result depends on the position
/// and the limits alone.
pub fn judge_move(engine: &mut Engine, game: &Game, played: Move, limits: &Limits) -> MoveReport {
    engine.new_game();
    let rules = game.rules();
    let played_text = rules.move_text(&played);
    let mut infos: Vec<SearchInfo> = Vec::new();
    let request = SearchRequest {
        limits: limits.clone(),
        searchmoves: Vec::new(),
    };
    let result = engine.search_judging(game, request, played, &mut |event| {
        if let SearchEvent::Info(info) = event {
            infos.push(info);
        }
    });
    let best_info = infos.iter().rev().find(|i| i.multipv == 1);
    let best_move = result
        .best
        .or_else(|| best_info.and_then(|i| i.pv.first().copied()))
        .unwrap_or(played);
    let scored = |info: &SearchInfo| Scored {
        value: value_of(info.score),
        depth: info.depth,
    };
    let best = best_info.map_or(
        Scored {
            value: Value::Cp(0),
            depth: 0,
        },
        scored,
    );
    let nodes = infos.last().map_or(0, |i| i.nodes).max(result.nodes);
    let line_after =
        |info: &SearchInfo| info.pv.iter().skip(1).map(|m| rules.move_text(m)).collect();
    let judged = infos
        .iter()
        .rev()
        .take_while(|i| i.depth == best.depth)
        .find(|i| i.pv.first() == Some(&played));
    let (played_scored, line) = if best_move == played {
        (best, best_info.map_or_else(Vec::new, line_after))
    } else if let Some(info) = judged {
        (scored(info), line_after(info))
    } else {
        // The tables chose the root's move and reported nothing else: the
        // played move alone, as deep as the best one.
        searched_alone(engine, game, played, best.depth.max(1))
    };
    let mut report = MoveReport {
        best_move: rules.move_text(&best_move),
        best,
        played: played_scored,
        line,
        nodes,
    };
    report.one_score_for_one_move(&played_text);
    report
}

/// The played move searched on its own, to `depth`.
fn searched_alone(
    engine: &mut Engine,
    game: &Game,
    played: Move,
    depth: u32,
) -> (Scored, Vec<String>) {
    engine.new_game();
    let rules = game.rules();
    let request = SearchRequest {
        limits: Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        searchmoves: vec![played],
    };
    let mut last: Option<SearchInfo> = None;
    engine.search_judging(game, request, played, &mut |event| {
        if let SearchEvent::Info(info) = event {
            last = Some(info);
        }
    });
    match last {
        Some(info) => (
            Scored {
                value: value_of(info.score),
                depth: info.depth,
            },
            info.pv.iter().skip(1).map(|m| rules.move_text(m)).collect(),
        ),
        None => (
            Scored {
                value: Value::Cp(0),
                depth: 0,
            },
            Vec::new(),
        ),
    }
}

impl MoveReport {
    /// The played move is the best one: one score for both (the exact one
    /// if either is), so a move is never weighed against itself.
    fn one_score_for_one_move(&mut self, played: &str) {
        if self.best_move == played {
            let exact = |s: &Scored| s.depth == 0;
            let one = if exact(&self.played) && !exact(&self.best) {
                self.played
            } else {
                self.best
            };
            (self.best, self.played) = (one, one);
        }
    }
}

/// Exact values where the game's end or the tables give them: the position
/// before the move (the best value) and the one after it (the played
/// move's, one ply further from the mover's view). The history rules can
/// change a table value, so the tables are asked with the game's history.
fn exact_values(tables: &Tables, game: &Game, played: Move, report: &mut MoveReport) {
    let mover = game.position().side_to_move();
    let mut after = game.clone();
    after.play(&played);
    let exact_after = match after.status() {
        Some(end) => Some(match end.outcome {
            Outcome::Draw => Value::Draw,
            Outcome::Win(p) if p == mover => Value::Win(1),
            Outcome::Win(_) => Value::Loss(1),
        }),
        None => table_value(tables, &after).map(|v| {
            let for_mover = if after.position().side_to_move() == mover {
                v
            } else {
                v.flip()
            };
            for_mover.one_ply_earlier()
        }),
    };
    if let Some(value) = exact_after {
        report.played = Scored { value, depth: 0 };
    }
    if let Some(value) = table_value(tables, game) {
        report.best = Scored { value, depth: 0 };
    }
    report.one_score_for_one_move(&game.rules().move_text(&played));
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
    /// Per player: index 0 White (player 1), 1 Black.
    pub tallies: [Tally; 2],
    /// The move that decided the game (ply index, 0-based), if any.
    pub decisive: Option<usize>,
    pub movers: Vec<usize>,
}

/// Judges every move of `input` from its report (`reports[ply]`).
pub fn judge_game(input: &GameInput, reports: &[MoveReport]) -> GameAnalysis {
    let mut game = Game::from_position(input.rules.clone(), input.start);
    let mut judgements = Vec::with_capacity(input.moves.len());
    let mut tallies = [Tally::default(); 2];
    let mut movers = Vec::with_capacity(input.moves.len());
    for (mv, report) in input.moves.iter().zip(reports) {
        let side = game.position().side_to_move().index();
        game.play(mv);
        let judgement = judge::judge(report.best.value, report.played.value);
        tallies[side].add(&judgement);
        judgements.push(judgement);
        movers.push(side);
    }
    let decisive = decisive_error(&input.record, &judgements, &movers);
    GameAnalysis {
        judgements,
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

/// The comment written after a move: the move's value from the mover's
/// view with its depth, the mark and the better move with its value when
/// the move lost something, then the engine's line after the move.
pub fn move_comment(judgement: &MoveJudgement, report: &MoveReport) -> String {
    let mut text = report.played.to_string();
    if judgement.mark != judge::Mark::Good {
        text.push_str(&format!(
            " {} {}, best {} {}",
            judgement.mark.symbol(),
            judgement.mark.name(),
            report.best_move,
            report.best
        ));
    }
    if !report.line.is_empty() {
        text.push_str("; ");
        text.push_str(&report.line.join(" "));
    }
    text
}
