//! Playing one game between two engine processes, refereed by the rules
//! library: every move is checked with `Rules::parse_move`, the clocks are
//! kept here, and the game ends by the variant's rules (history rules
//! included), by adjudication, or by a forfeit. An engine's word on legality
//! or results is never taken.

use super::openings::Opening;
pub use crate::client::TimeControl;
use crate::client::engine_process::{Dialect, EngineError, EngineProcess, MATE_SCORE, Reply};
use crate::client::live::ClockReading;
use crate::rules::{Game, GameEnd, Move, MoveError, Outcome, Player, Rules};
use std::fmt;
use std::time::Duration;

/// When the runner ends a game the rules have not ended yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw once this many plies (opening included) are played; 0 = off.
    pub max_plies: usize,
    /// Draw when both engines' scores stay within ±cp for this many plies.
    pub draw: Option<ScoreRule>,
    /// Win for the side both engines agree is ahead by at least cp, for this
    /// many plies.
    pub resign: Option<ScoreRule>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRule {
    pub cp: i32,
    pub plies: usize,
}

/// The match's time control and the limits that are not part of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// For every engine without a `tc=` of its own.
    pub control: TimeControl,
    /// Grace beyond the clock or movetime before a move counts as late.
    pub margin: Duration,
    /// For depth and node limits, the wait after which an engine is hung.
    pub move_timeout: Duration,
}

/// Why an engine lost by misbehaving.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    IllegalMove(String),
    MalformedReply(String),
    TimeLoss(String),
    /// No reply to a search without a clock.
    Hang(String),
    Crash(String),
    Garbage(String),
}

impl Forfeit {
    /// A short code, for counting terminations.
    pub fn code(&self) -> &'static str {
        match self {
            Forfeit::IllegalMove(_) => "illegal move",
            Forfeit::MalformedReply(_) => "malformed reply",
            Forfeit::TimeLoss(_) => "time forfeit",
            Forfeit::Hang(_) => "hang",
            Forfeit::Crash(_) => "crash",
            Forfeit::Garbage(_) => "garbage output",
        }
    }

    fn detail(&self) -> &str {
        match self {
            Forfeit::IllegalMove(d)
            | Forfeit::MalformedReply(d)
            | Forfeit::TimeLoss(d)
            | Forfeit::Hang(d)
            | Forfeit::Crash(d)
            | Forfeit::Garbage(d) => d,
        }
    }

    fn from_engine_error(error: EngineError, clocked: bool) -> Forfeit {
        let text = error.to_string();
        match error {
            EngineError::Timeout { .. } if clocked => Forfeit::TimeLoss(text),
            EngineError::Timeout { .. } => Forfeit::Hang(text),
            EngineError::Garbage(_) => Forfeit::Garbage(text),
            EngineError::Spawn(_)
            | EngineError::Crashed(_)
            | EngineError::VariantMismatch { .. }
            | EngineError::RulesMismatch { .. }
            | EngineError::BadOption { .. }
            | EngineError::Interrupted => Forfeit::Crash(text),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    Rules(GameEnd),
    MaxPlies,
    DrawByScores,
    ResignByScores(Player),
    Forfeit { loser: Player, why: Forfeit },
}

impl Termination {
    pub fn outcome(&self) -> Outcome {
        match self {
            Termination::Rules(end) => end.outcome,
            Termination::MaxPlies | Termination::DrawByScores => Outcome::Draw,
            Termination::ResignByScores(winner) => Outcome::Win(*winner),
            Termination::Forfeit { loser, .. } => Outcome::Win(!*loser),
        }
    }

    /// A short code, for counting terminations.
    pub fn code(&self) -> String {
        match self {
            Termination::Rules(end) => end.reason.to_string(),
            Termination::MaxPlies => "max plies".to_string(),
            Termination::DrawByScores => "draw by scores".to_string(),
            Termination::ResignByScores(_) => "resign by scores".to_string(),
            Termination::Forfeit { why, .. } => why.code().to_string(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules(end) => write!(f, "{end}"),
            Termination::MaxPlies => f.write_str("draw: maximum number of plies reached"),
            Termination::DrawByScores => f.write_str("draw: adjudicated by engine scores"),
            Termination::ResignByScores(p) => write!(f, "{p} wins: adjudicated by engine scores"),
            Termination::Forfeit { loser, why } => {
                write!(
                    f,
                    "{} wins: {loser} {}: {}",
                    !*loser,
                    why.code(),
                    why.detail()
                )
            }
        }
    }
}

/// What a finished game leaves behind.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub termination: Termination,
    /// Every move from the opening's start position, opening moves first, in
    /// the project's canonical notation.
    pub moves: Vec<String>,
    /// Per move, what its engine said of it (`+0.35/7 0.120s`: score in
    /// pawns from the mover's side, depth, time); empty for opening moves.
    pub comments: Vec<String>,
    /// Which side's engine misbehaved and must be restarted.
    pub failed: Option<Player>,
}

/// Both sides' clocks: each side's control, milliseconds left and moves
/// made in the current period.
struct Clocks {
    controls: [TimeControl; 2],
    left: [u64; 2],
    moves: [u32; 2],
}

impl Clocks {
    fn new(controls: [TimeControl; 2]) -> Clocks {
        let base = |c: &TimeControl| match c {
            TimeControl::Clock { base_ms, .. } => *base_ms,
            _ => 0,
        };
        Clocks {
            left: [base(&controls[0]), base(&controls[1])],
            controls,
            moves: [0; 2],
        }
    }

    /// Charges a move's time, adds the increment, and starts a new period
    /// after its last move.
    fn charge(&mut self, side: Player, elapsed: Duration) {
        let i = side.index();
        if let TimeControl::Clock {
            moves,
            base_ms,
            inc_ms,
        } = self.controls[i]
        {
            self.left[i] = self.left[i].saturating_sub(elapsed.as_millis() as u64) + inc_ms;
            self.moves[i] += 1;
            if moves.is_some_and(|n| self.moves[i] >= n) {
                self.moves[i] = 0;
                self.left[i] += base_ms;
            }
        }
    }

    /// Each side's time left (White, Black), None for a side whose
    /// control is not a clock; for viewers of the games in progress.
    fn reading(&self) -> ClockReading {
        [0, 1].map(|i| self.controls[i].is_clock().then_some(self.left[i]))
    }

    /// Moves left in the side's period, for `movestogo`.
    fn moves_to_go(&self, side: Player) -> Option<u32> {
        match self.controls[side.index()] {
            TimeControl::Clock { moves: Some(n), .. } => Some(n - self.moves[side.index()]),
            _ => None,
        }
    }
}

/// Plays `opening` to the end between `white` and `black` (both already
/// started and told about the new game), each under its own time control.
/// `on_moves` sees the moves so far, opening included, and both clocks
/// (see `Clocks::reading`) before the first search and after every ply:
/// the runner publishes them for viewers.
/// None if the runner was interrupted meanwhile.
pub fn play(
    rules: &Rules,
    opening: &Opening,
    timing: &Timing,
    controls: [TimeControl; 2],
    adjudication: &Adjudication,
    engines: [&mut EngineProcess; 2],
    on_moves: &mut dyn FnMut(&[String], ClockReading),
) -> Option<GameReport> {
    let mut game = opening
        .game(rules)
        .expect("openings are checked when loaded");
    let mut moves: Vec<String> = game.moves().iter().map(|m| rules.move_text(m)).collect();
    let mut comments = vec![String::new(); moves.len()];
    let mut position_cmd = format!("position {}", opening.base_command());
    for mv in &moves {
        append_move(&mut position_cmd, mv);
    }
    let mut clocks = Clocks::new(controls);
    let mut scores = ScoreHistory::default();
    on_moves(&moves, clocks.reading());
    loop {
        if let Some(end) = verdict(&game, moves.len(), adjudication, &scores) {
            return Some(GameReport {
                termination: end,
                moves,
                comments,
                failed: None,
            });
        }
        let side = game.position().side_to_move();
        let engine = &mut *engines[side.index()];
        match one_move(engine, &game, &position_cmd, timing, &mut clocks, side) {
            Err(None) => return None,
            Err(Some(why)) => {
                return Some(GameReport {
                    termination: Termination::Forfeit { loser: side, why },
                    moves,
                    comments,
                    failed: Some(side),
                });
            }
            Ok((mv, reply)) => {
                let text = rules.move_text(&mv);
                game.play(&mv);
                append_move(&mut position_cmd, &text);
                moves.push(text);
                comments.push(comment(&reply));
                scores.push(side, reply.score);
                on_moves(&moves, clocks.reading());
            }
        }
    }
}

/// `+0.35/7 0.120s`, as cutechess writes: the score in pawns from the
/// mover's side (`+M`/`-M` for a mate score), the depth, the time.
fn comment(reply: &Reply) -> String {
    let score = match reply.score {
        Some(s) if s.abs() >= MATE_SCORE => format!("{}M", if s > 0 { '+' } else { '-' }),
        Some(s) => format!("{:+.2}", f64::from(s) / 100.0),
        None => "?".to_string(),
    };
    let depth = reply.depth.map_or("?".to_string(), |d| d.to_string());
    format!("{score}/{depth} {:.3}s", reply.elapsed.as_secs_f64())
}

/// Extends `position …` by one move; the `moves` keyword comes with the
/// first, since strict engines may reject `moves` followed by nothing.
fn append_move(position_cmd: &mut String, mv: &str) {
    if !position_cmd.contains(" moves") {
        position_cmd.push_str(" moves");
    }
    position_cmd.push(' ');
    position_cmd.push_str(mv);
}

/// The end by the rules first (the rules' result stands even when the
/// adjudication limits are reached at the same time), then adjudication.
fn verdict(
    game: &Game,
    plies: usize,
    adjudication: &Adjudication,
    scores: &ScoreHistory,
) -> Option<Termination> {
    if let Some(end) = game.status() {
        return Some(Termination::Rules(end));
    }
    if adjudication.max_plies > 0 && plies >= adjudication.max_plies {
        return Some(Termination::MaxPlies);
    }
    if let Some(rule) = adjudication.resign
        && let Some(winner) = scores.agreed_winner(rule)
    {
        return Some(Termination::ResignByScores(winner));
    }
    match adjudication.draw {
        Some(rule) if scores.agreed_draw(rule) => Some(Termination::DrawByScores),
        _ => None,
    }
}

/// Asks the side to move for its move and checks it: the legal move and
/// the engine's reply, or the forfeit; `Err(None)` when the runner got
/// SIGINT or SIGTERM (the game is then abandoned unrecorded).
fn one_move(
    engine: &mut EngineProcess,
    game: &Game,
    position_cmd: &str,
    timing: &Timing,
    clocks: &mut Clocks,
    side: Player,
) -> Result<(Move, Reply), Option<Forfeit>> {
    let (go, allowed) = go_command(engine.dialect(), timing, clocks, side);
    let clocked = !matches!(
        clocks.controls[side.index()],
        TimeControl::Nodes(_) | TimeControl::Depth(_)
    );
    let reply = engine.go(position_cmd, &go, allowed).map_err(|e| match e {
        EngineError::Interrupted => None,
        e => Some(Forfeit::from_engine_error(e, clocked)),
    })?;
    if clocked && reply.elapsed > allowed {
        return Err(Some(Forfeit::TimeLoss(format!(
            "answered after {} ms, allowed {} ms",
            reply.elapsed.as_millis(),
            allowed.as_millis()
        ))));
    }
    clocks.charge(side, reply.elapsed);
    let mv = check_move(game, &reply.tokens).map_err(Some)?;
    Ok((mv, reply))
}

/// The `go` command for the side to move, and how long it may take before it
/// forfeits (clock or movetime plus the margin, else the hang timeout).
fn go_command(
    dialect: Dialect,
    timing: &Timing,
    clocks: &Clocks,
    side: Player,
) -> (String, Duration) {
    let margin = timing.margin;
    match clocks.controls[side.index()] {
        TimeControl::Clock { .. } => {
            let [w, b] = clocks.left;
            let inc = |i: usize| match clocks.controls[i] {
                TimeControl::Clock { inc_ms, .. } => inc_ms,
                _ => 0,
            };
            let (wi, bi) = (inc(0), inc(1));
            let mut go = match dialect {
                Dialect::Ugi => format!("go p1time {w} p2time {b} p1inc {wi} p2inc {bi}"),
                Dialect::Uci => format!("go wtime {w} btime {b} winc {wi} binc {bi}"),
            };
            if let Some(n) = clocks.moves_to_go(side) {
                go += &format!(" movestogo {n}");
            }
            (
                go,
                Duration::from_millis(clocks.left[side.index()]) + margin,
            )
        }
        TimeControl::MoveTime(ms) => (
            format!("go movetime {ms}"),
            Duration::from_millis(ms) + margin,
        ),
        TimeControl::Nodes(n) => (format!("go nodes {n}"), timing.move_timeout),
        TimeControl::Depth(d) => (format!("go depth {d}"), timing.move_timeout),
    }
}

/// The referee: the reply must be `bestmove <move> [ponder <move>]` with a
/// legal move, which is returned.
fn check_move(game: &Game, tokens: &[String]) -> Result<Move, Forfeit> {
    let reply = || format!("bestmove {}", tokens.join(" "));
    let well_formed = match tokens {
        [_] => true,
        [_, ponder, _] => ponder == "ponder",
        _ => false,
    };
    if !well_formed {
        return Err(Forfeit::MalformedReply(format!("'{}'", reply())));
    }
    match game.rules().parse_move(game.position(), &tokens[0]) {
        // An engine answers with whole moves: a jump without the removals
        // it owes is how a front end plays a capture in two turns, not an
        // answer to `go`.
        Ok(mv) if mv.owed_after() > 0 => Err(Forfeit::IllegalMove(format!(
            "move '{}' is illegal: a capture's answer must list its {} removal(s)",
            tokens[0],
            mv.owed_after()
        ))),
        Ok(mv) => Ok(mv),
        Err(e @ MoveError::Illegal { .. }) => Err(Forfeit::IllegalMove(e.to_string())),
        Err(e) => Err(Forfeit::MalformedReply(format!("'{}': {e}", reply()))),
    }
}

/// Each ply's mover and score, from White's point of view, for adjudication.
#[derive(Default)]
struct ScoreHistory {
    plies: Vec<(Player, Option<i32>)>,
}

impl ScoreHistory {
    fn push(&mut self, mover: Player, score: Option<i32>) {
        // Saturated again here, so that no engine's number can overflow.
        let white_view = score
            .map(|s| s.clamp(-MATE_SCORE, MATE_SCORE))
            .map(|s| if mover == Player::White { s } else { -s });
        self.plies.push((mover, white_view));
    }

    /// The last `plies` scores, if every one was given and both engines
    /// spoke among them (with bonus turns one side can move several times).
    fn recent(&self, plies: usize) -> Option<Vec<i32>> {
        if plies == 0 || self.plies.len() < plies {
            return None;
        }
        let tail = &self.plies[self.plies.len() - plies..];
        let both = tail.iter().any(|(p, _)| *p == Player::White)
            && tail.iter().any(|(p, _)| *p == Player::Black);
        if !both {
            return None;
        }
        tail.iter().map(|(_, s)| *s).collect()
    }

    fn agreed_winner(&self, rule: ScoreRule) -> Option<Player> {
        let scores = self.recent(rule.plies)?;
        let threshold = rule.cp.min(MATE_SCORE);
        if scores.iter().all(|&s| s >= threshold) {
            Some(Player::White)
        } else if scores.iter().all(|&s| s <= -threshold) {
            Some(Player::Black)
        } else {
            None
        }
    }

    fn agreed_draw(&self, rule: ScoreRule) -> bool {
        self.recent(rule.plies)
            .is_some_and(|scores| scores.iter().all(|s| s.abs() <= rule.cp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_adjudication_needs_both_engines_and_every_score() {
        let rule = ScoreRule { cp: 500, plies: 4 };
        let mut h = ScoreHistory::default();
        for _ in 0..2 {
            h.push(Player::White, Some(600));
            h.push(Player::Black, Some(-700));
        }
        assert_eq!(h.agreed_winner(rule), Some(Player::White));
        h.push(Player::White, None);
        assert_eq!(h.agreed_winner(rule), None);
        let mut only_white = ScoreHistory::default();
        for _ in 0..4 {
            only_white.push(Player::White, Some(-900));
        }
        assert_eq!(
            only_white.agreed_winner(rule),
            None,
            "bonus turns: one engine alone"
        );
        let mut drawn = ScoreHistory::default();
        for s in [3, -5, 0, 10] {
            drawn.push(Player::White, Some(s));
            drawn.push(Player::Black, Some(s));
        }
        assert!(drawn.agreed_draw(ScoreRule { cp: 10, plies: 8 }));
        assert!(!drawn.agreed_draw(ScoreRule { cp: 9, plies: 8 }));
    }

    #[test]
    fn referee_sorts_replies() {
        let game = Game::new(Rules::standard());
        let check = |tokens: &[&str]| {
            let owned: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
            check_move(&game, &owned).map(|mv| game.rules().move_text(&mv))
        };
        assert_eq!(check(&["@c3"]), Ok("@c3".to_string()));
        assert_eq!(check(&["@c3", "ponder", "@d4"]), Ok("@c3".to_string()));
        assert!(matches!(check(&[]), Err(Forfeit::MalformedReply(_))));
        assert!(matches!(
            check(&["@c3", "@d4"]),
            Err(Forfeit::MalformedReply(_))
        ));
        assert!(matches!(check(&["zz"]), Err(Forfeit::MalformedReply(_))));
        assert!(matches!(check(&["c3c4"]), Err(Forfeit::IllegalMove(_))));
        // A jump without the removal it owes is a front end's first part
        // of a capture, not an engine's answer.
        let rules = Rules::standard();
        let jump = rules.parse_position("6/6/2WB2/6/B5 w 3 3").unwrap();
        let game = Game::from_position(rules, jump);
        let check = |text: &str| check_move(&game, &[text.to_string()]);
        assert!(matches!(check("c3e3"), Err(Forfeit::IllegalMove(e)) if e.contains("removal")));
        assert!(check("c3e3xa1").is_ok());
    }

    #[test]
    fn go_commands_per_dialect() {
        let control = TimeControl::Clock {
            moves: None,
            base_ms: 1000,
            inc_ms: 10,
        };
        let timing = Timing {
            control,
            margin: Duration::from_millis(50),
            move_timeout: Duration::from_secs(1),
        };
        let mut clocks = Clocks::new([control; 2]);
        clocks.left = [900, 800];
        let (ugi, allowed) = go_command(Dialect::Ugi, &timing, &clocks, Player::Black);
        assert_eq!(ugi, "go p1time 900 p2time 800 p1inc 10 p2inc 10");
        assert_eq!(allowed, Duration::from_millis(850));
        let (uci, _) = go_command(Dialect::Uci, &timing, &clocks, Player::White);
        assert_eq!(uci, "go wtime 900 btime 800 winc 10 binc 10");
    }

    #[test]
    fn moves_per_period_and_time_odds() {
        let period = TimeControl::Clock {
            moves: Some(2),
            base_ms: 1000,
            inc_ms: 0,
        };
        let odds = TimeControl::Clock {
            moves: None,
            base_ms: 500,
            inc_ms: 5,
        };
        assert_eq!(period.to_string(), "2/1");
        assert_eq!(period.pgn(), "2/1");
        assert_eq!(odds.pgn(), "0.5+0.005");
        assert_eq!(TimeControl::Depth(3).pgn(), "-");
        let timing = Timing {
            control: period,
            margin: Duration::ZERO,
            move_timeout: Duration::from_secs(1),
        };
        let mut clocks = Clocks::new([period, odds]);
        let go = |c: &Clocks, side| go_command(Dialect::Uci, &timing, c, side).0;
        assert_eq!(
            go(&clocks, Player::White),
            "go wtime 1000 btime 500 winc 0 binc 5 movestogo 2"
        );
        clocks.charge(Player::White, Duration::from_millis(300));
        clocks.charge(Player::Black, Duration::from_millis(100));
        assert_eq!(
            go(&clocks, Player::White),
            "go wtime 700 btime 405 winc 0 binc 5 movestogo 1"
        );
        // The period's last move: the next period's time is added.
        clocks.charge(Player::White, Duration::from_millis(200));
        assert_eq!(clocks.left[0], 1500);
        assert_eq!(clocks.moves_to_go(Player::White), Some(2));
        assert_eq!(
            go(&clocks, Player::Black),
            "go wtime 1500 btime 405 winc 0 binc 5"
        );
    }
}
