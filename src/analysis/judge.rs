//! How much a move lost, and what that makes it.
//!
//! Every value is turned into an *expected score* for the player it belongs
//! to, between 0 (lost) and 1 (won): a search score of `c` centipawns gives
//! `1 / (1 + e^(-c / SCALE))`, a proved win 1, a proved loss 0, a proved draw
//! ½. A move's loss is the expected score of the best move minus that of the
//! move played, both from the mover's view; the thresholds below turn it into
//! a mark. Working on expected scores rather than raw centipawns means a
//! piece thrown away in a dead-won position costs little, and the same piece
//! in a balanced one costs a lot — which is what a player means by a mistake.
//!
//! Exact knowledge overrides the scale: a move that turns a proved win into
//! anything else, or a proved draw into a proved loss, is always a blunder.

use std::fmt;

/// Centipawns for which the expected score moves from ½ to about 0.70: one
/// piece (100) is worth a lot in Yoté, where a capture costs two.
pub const SCALE: f64 = 120.0;

/// Expected-score losses at or above which a move gets each mark.
pub const INACCURACY: f64 = 0.05;
pub const MISTAKE: f64 = 0.10;
pub const BLUNDER: f64 = 0.20;

/// Centipawn losses are capped here, so one lost won game does not swamp a
/// player's average (as chess tools cap them at 1000).
pub const CP_CAP: i32 = 1000;

/// The value of a position for the player to move in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A search estimate in centipawns.
    Cp(i32),
    /// A proved win in this many plies (0: the game is already won).
    Win(u32),
    /// A proved loss in this many plies (0: the game is already lost).
    Loss(u32),
    /// A proved draw (the game ended drawn, or the tables say so).
    Draw,
}

impl Value {
    /// The same position seen by the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Cp(c) => Value::Cp(-c),
            Value::Win(n) => Value::Loss(n),
            Value::Loss(n) => Value::Win(n),
            Value::Draw => Value::Draw,
        }
    }

    /// The value one ply before the position it belongs to, for the same
    /// player: a proved result is one ply further away.
    pub fn one_ply_earlier(self) -> Value {
        match self {
            Value::Win(n) => Value::Win(n + 1),
            Value::Loss(n) => Value::Loss(n + 1),
            other => other,
        }
    }

    pub fn expected_score(self) -> f64 {
        match self {
            Value::Cp(c) => 1.0 / (1.0 + (-f64::from(c) / SCALE).exp()),
            Value::Win(_) => 1.0,
            Value::Loss(_) => 0.0,
            Value::Draw => 0.5,
        }
    }

    /// Centipawns for averages: proved results count as the cap.
    pub fn centipawns(self) -> i32 {
        match self {
            Value::Cp(c) => c.clamp(-CP_CAP, CP_CAP),
            Value::Win(_) => CP_CAP,
            Value::Loss(_) => -CP_CAP,
            Value::Draw => 0,
        }
    }

    fn is_proved_win(self) -> bool {
        matches!(self, Value::Win(_))
    }

    fn is_proved_draw_or_better(self) -> bool {
        matches!(self, Value::Win(_) | Value::Draw)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Cp(c) => write!(f, "{:+.2}", f64::from(*c) / 100.0),
            Value::Win(n) => write!(f, "+W{n}"),
            Value::Loss(n) => write!(f, "-L{n}"),
            Value::Draw => f.write_str("=D"),
        }
    }
}

/// The mark a move earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The PGN-style suffix, written in the move's comment.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Good => "",
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Good => "good",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// What one played move cost its player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveJudgement {
    /// The best value the mover could have had.
    pub best: Value,
    /// The value after the move played, from the mover's view.
    pub played: Value,
    /// Expected score lost, 0 or more.
    pub loss: f64,
    /// Centipawns lost (capped), 0 or more.
    pub cp_loss: i32,
    pub mark: Mark,
}

/// Judges a move from the value before it (`best`, the search's best) and
/// after it (`played`, both from the mover's view).
pub fn judge(best: Value, played: Value) -> MoveJudgement {
    // A search can find a better line after the move than before it; the
    // move then lost nothing, it did not gain.
    let loss = (best.expected_score() - played.expected_score()).max(0.0);
    let cp_loss = (best.centipawns() - played.centipawns()).max(0);
    let threw_exact = (best.is_proved_win() && !played.is_proved_win())
        || (best.is_proved_draw_or_better() && matches!(played, Value::Loss(_)));
    let mark = if threw_exact || loss >= BLUNDER {
        Mark::Blunder
    } else if loss >= MISTAKE {
        Mark::Mistake
    } else if loss >= INACCURACY {
        Mark::Inaccuracy
    } else {
        Mark::Good
    };
    MoveJudgement {
        best,
        played,
        loss,
        cp_loss,
        mark,
    }
}

/// A player's moves added up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub moves: u32,
    pub cp_loss: u64,
    pub loss: f64,
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
}

impl Tally {
    pub fn add(&mut self, j: &MoveJudgement) {
        self.moves += 1;
        self.cp_loss += u64::from(j.cp_loss.unsigned_abs());
        self.loss += j.loss;
        match j.mark {
            Mark::Good => {}
            Mark::Inaccuracy => self.inaccuracies += 1,
            Mark::Mistake => self.mistakes += 1,
            Mark::Blunder => self.blunders += 1,
        }
    }

    pub fn merge(&mut self, other: &Tally) {
        self.moves += other.moves;
        self.cp_loss += other.cp_loss;
        self.loss += other.loss;
        self.inaccuracies += other.inaccuracies;
        self.mistakes += other.mistakes;
        self.blunders += other.blunders;
    }

    /// Average centipawn loss per move.
    pub fn average_cp_loss(&self) -> f64 {
        self.cp_loss as f64 / f64::from(self.moves.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_scores_are_ordered_and_symmetric() {
        assert_eq!(Value::Cp(0).expected_score(), 0.5);
        let up = Value::Cp(100).expected_score();
        assert!(up > 0.65 && up < 0.75, "{up}");
        assert!((Value::Cp(100).flip().expected_score() - (1.0 - up)).abs() < 1e-12);
        assert_eq!(Value::Win(7).expected_score(), 1.0);
        assert_eq!(Value::Win(7).flip(), Value::Loss(7));
    }

    #[test]
    fn marks_follow_the_thresholds() {
        assert_eq!(judge(Value::Cp(0), Value::Cp(-10)).mark, Mark::Good);
        assert_eq!(judge(Value::Cp(0), Value::Cp(-30)).mark, Mark::Inaccuracy);
        assert_eq!(judge(Value::Cp(0), Value::Cp(-60)).mark, Mark::Mistake);
        assert_eq!(judge(Value::Cp(0), Value::Cp(-200)).mark, Mark::Blunder);
        // The same two pieces cost little when the game is long decided.
        assert_eq!(judge(Value::Cp(900), Value::Cp(700)).mark, Mark::Good);
        // A search that sees more after the move: no gain, no loss.
        let better = judge(Value::Cp(0), Value::Cp(50));
        assert_eq!(
            (better.loss, better.cp_loss, better.mark),
            (0.0, 0, Mark::Good)
        );
    }

    #[test]
    fn exact_results_thrown_away_are_blunders() {
        assert_eq!(judge(Value::Win(9), Value::Draw).mark, Mark::Blunder);
        assert_eq!(judge(Value::Win(9), Value::Cp(900)).mark, Mark::Blunder);
        assert_eq!(judge(Value::Draw, Value::Loss(30)).mark, Mark::Blunder);
        // A slower win is still a win.
        assert_eq!(judge(Value::Win(3), Value::Win(11)).mark, Mark::Good);
        // A lost position stays lost whatever is played.
        assert_eq!(judge(Value::Loss(4), Value::Loss(2)).mark, Mark::Good);
    }

    #[test]
    fn tallies_add_up() {
        let mut t = Tally::default();
        t.add(&judge(Value::Cp(0), Value::Cp(-200)));
        t.add(&judge(Value::Cp(0), Value::Cp(0)));
        assert_eq!((t.moves, t.blunders, t.cp_loss), (2, 1, 200));
        assert_eq!(t.average_cp_loss(), 100.0);
    }
}
