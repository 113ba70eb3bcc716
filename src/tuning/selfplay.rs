//! In-process self-play for measuring strength until the match runner
//! lands: two engine configurations play pairs of games from seeded random
//! openings, each opening once with each colour, refereed by `Game`.

use crate::rng::SplitMix64;
use crate::rules::{Game, MoveList, Outcome, Player, Rules};
use crate::search::alphabeta::Features;
use crate::search::driver;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, PlayStyle, SearchOptions, SearchRequest, Signals};

/// Games longer than this are adjudicated drawn (most presets have no
/// draw rule, and stepping back and forth can go on for ever).
const MAX_PLIES: usize = 400;

/// One side of a match.
#[derive(Clone, Debug)]
pub struct Contender {
    pub options: SearchOptions,
    pub features: Features,
    pub limits: Limits,
}

impl Contender {
    /// The full engine at a fixed node count per move.
    pub fn at_nodes(nodes: u64) -> Contender {
        Contender {
            options: SearchOptions {
                hash_mb: 8,
                ..SearchOptions::default()
            },
            features: Features::default(),
            limits: Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
        }
    }

    /// The full engine at a fixed time per move.
    pub fn at_movetime(ms: u64) -> Contender {
        Contender {
            limits: Limits {
                movetime: Some(ms),
                ..Limits::default()
            },
            ..Contender::at_nodes(0)
        }
    }

    /// A baseline player (`PlayStyle::Random` or `Greedy`).
    pub fn baseline(style: PlayStyle) -> Contender {
        let mut c = Contender::at_nodes(1);
        c.options.style = style;
        c
    }
}

/// Wins, draws and losses of the first contender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchResult {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl MatchResult {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Elo difference and its 95% error margin, from the score and its
    /// standard error (trinomial model, each game independent).
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games().max(1));
        let (w, d, l) = (
            f64::from(self.wins) / n,
            f64::from(self.draws) / n,
            f64::from(self.losses) / n,
        );
        let p = (w + d / 2.0).clamp(1e-3, 1.0 - 1e-3);
        let var = w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + l * p.powi(2);
        let se = (var / n).sqrt();
        let elo = |p: f64| -400.0 * (1.0 / p - 1.0).log10();
        let lo = elo((p - 1.96 * se).clamp(1e-3, 1.0 - 1e-3));
        let hi = elo((p + 1.96 * se).clamp(1e-3, 1.0 - 1e-3));
        (elo(p), (hi - lo) / 2.0)
    }
}

impl std::fmt::Display for MatchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "+{} ={} -{} ({} games)",
            self.wins,
            self.draws,
            self.losses,
            self.games()
        )?;
        // A clean sweep has no finite Elo estimate: say so rather than
        // print the clamped number.
        if self.wins == self.games() || self.losses == self.games() {
            return f.write_str(": no finite Elo (every game won by one side)");
        }
        let (elo, err) = self.elo();
        write!(f, ": {elo:+.0} ± {err:.0} Elo")
    }
}

/// Plays `pairs` openings twice each (colours swapped); `a`'s result.
pub fn play_match(
    rules: &Rules,
    a: &Contender,
    b: &Contender,
    pairs: u32,
    opening_plies: usize,
    seed: u64,
) -> MatchResult {
    let mut result = MatchResult::default();
    for pair in 0..pairs {
        let opening = random_opening(rules, opening_plies, seed.wrapping_add(u64::from(pair)));
        for a_is_white in [true, false] {
            let (white, black) = if a_is_white { (a, b) } else { (b, a) };
            let game_seed = seed ^ u64::from(pair) << 1 ^ u64::from(a_is_white);
            match play_game(opening.clone(), white, black, game_seed) {
                Some(winner) if (winner == Player::White) == a_is_white => result.wins += 1,
                Some(_) => result.losses += 1,
                None => result.draws += 1,
            }
        }
    }
    result
}

/// A game after `plies` uniformly random moves that is not over yet.
pub fn random_opening(rules: &Rules, plies: usize, seed: u64) -> Game {
    random_opening_with(rules, &mut SplitMix64::new(seed), |_| plies)
}

/// A game after uniformly random moves that is not over yet, `rng` drawing
/// the moves and, before each try, `plies` how many.
pub fn random_opening_with(
    rules: &Rules,
    rng: &mut SplitMix64,
    mut plies: impl FnMut(&mut SplitMix64) -> usize,
) -> Game {
    let mut list = MoveList::new();
    loop {
        let plies = plies(rng);
        let mut game = Game::new(rules.clone());
        for _ in 0..plies {
            game.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            game.play(&list.as_slice()[rng.below(list.len())]);
        }
        if game.status().is_none() {
            return game;
        }
    }
}

/// Plays a game to its end; the winner, or None for a draw (by the rules,
/// by threefold repetition, or by the length limit).
pub fn play_game(
    mut game: Game,
    white: &Contender,
    black: &Contender,
    seed: u64,
) -> Option<Player> {
    let tables = [white, black].map(|c| TranspositionTable::new(c.options.hash_mb));
    let signals = Signals::default();
    while game.moves().len() < MAX_PLIES {
        if let Some(end) = game.status() {
            return match end.outcome {
                Outcome::Win(p) => Some(p),
                Outcome::Draw => None,
            };
        }
        if game.repetitions() >= 3 {
            return None;
        }
        let side = game.position().side_to_move();
        let c = if side == Player::White { white } else { black };
        let options = SearchOptions {
            seed: seed ^ c.options.seed,
            ..c.options.clone()
        };
        let request = SearchRequest {
            limits: c.limits.clone(),
            searchmoves: Vec::new(),
        };
        let result = driver::search_with(
            &game,
            &request,
            &options,
            c.features,
            &tables[side.index()],
            &signals,
            &mut |_| {},
        );
        let mv = result.best.expect("a game that is not over has a move");
        game.play(&mv);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_an_even_score_is_zero() {
        let r = MatchResult {
            wins: 10,
            draws: 5,
            losses: 10,
        };
        assert!(r.elo().0.abs() < 1e-9);
        assert!(r.elo().1 > 0.0);
    }

    #[test]
    fn greedy_beats_random_in_a_short_match() {
        let rules = Rules::standard();
        let greedy = Contender::baseline(PlayStyle::Greedy);
        let random = Contender::baseline(PlayStyle::Random);
        let r = play_match(&rules, &greedy, &random, 3, 2, 1);
        assert!(r.wins > r.losses, "{r}");
    }
}
