//! Static evaluation: what a position is worth to the side to move, in
//! centipawn-like units (100 ≈ one piece on the board).
//!
//! The evaluation is linear in a handful of features a Yoté player would
//! name (pieces on the board and in hand, safe mobility, threats, double
//! threats, undefended pieces, guards, contact, the endgame balance, cell
//! tables, tempo), each counted per colour. Every feature has four weights:
//! opening and endgame (tapered by the pieces still in hand), and one pair
//! for the colour on move, one for the colour waiting, which is how tempo
//! and zugzwang enter. The weights are fitted to game data per rule family
//! (`yote tune`, docs/search.md) and live in `weights.rs`.
//!
//! Last, the whole value shrinks as plies pass without a capture
//! (`progress`): a side that is ahead prefers the line that captures sooner
//! to the one that shuffles, which is what converts won positions.
//!
//! Every term is shown by `explain` (the protocol's `eval` command);
//! `evaluate` is the same sum without building the list.

use super::weights::{FAMILY_WEIGHTS, Weights};
use crate::rules::{Bitboard, Direction, Geometry, Player, Position, Removal, Rules, WinCondition};

/// One named term of the evaluation, from each colour's own point of view;
/// `total` is White's value minus Black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalTerm {
    pub name: &'static str,
    pub white: i32,
    pub black: i32,
}

impl EvalTerm {
    pub fn total(&self) -> i32 {
        self.white - self.black
    }
}

/// The features, per colour. Each is a count (or 0/1) from that colour's
/// side; the weights give it a value.
pub const FEATURES: usize = 22;
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "board",
    "hand",
    "mobility",
    "threatened",
    "double-threat",
    "undefended",
    "attackers",
    "guarded",
    "near-loss",
    "contact",
    "ahead",
    "tempo",
    "cell-0-1",
    "cell-0-2",
    "cell-1-0",
    "cell-1-1",
    "cell-1-2",
    "cell-2-0",
    "cell-2-1",
    "cell-2-2",
    "stuck",
    "no-safe-step",
];
/// The first cell-table feature: cells by their distance to the nearest
/// rank edge and file edge (0, 1, 2 or more); corners (0, 0) are the
/// reference that `board` prices.
const CELLS: usize = 12;
const CELL_CLASSES: usize = 8;
const STUCK: usize = CELLS + CELL_CLASSES;

/// Names of the terms, in the order `explain` returns them: one per
/// feature, the cell table summed into `cells`, then `progress`.
pub const TERM_NAMES: [&str; TERMS] = [
    "board",
    "hand",
    "mobility",
    "threatened",
    "double-threat",
    "undefended",
    "attackers",
    "guarded",
    "near-loss",
    "contact",
    "ahead",
    "tempo",
    "cells",
    "stuck",
    "no-safe-step",
    "chase",
    "progress",
];
const TERMS: usize = 17;
const CHASE_TERM: usize = 15;
const PROGRESS_TERM: usize = 16;

/// Full weight of the opening half of a tapered weight (every piece still
/// in hand); 0 when every piece has been placed or lost from the hand.
pub const PHASE_MAX: i32 = 64;
/// After this many plies without a capture the evaluation has shrunk by
/// `PROGRESS_CAP / PROGRESS_SPAN` (a half) and shrinks no further.
pub const PROGRESS_CAP: u32 = 100;
pub const PROGRESS_SPAN: i32 = 200;
/// Centipawns the side ahead loses per step between its pieces and the
/// enemy's, once every piece is placed (`chase`).
pub const CHASE_CP: i32 = 4;

/// Which fitted weight set a rule set uses: the rules that change what a
/// piece is worth are where the extra removal may come from (a hand piece
/// is safe or not) and whether one piece left already loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Removal from the board (or none), one piece left loses.
    Board,
    /// The extra removal may come from the hand.
    Hand,
    /// Capture every piece to win.
    CaptureAll,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Board, Family::Hand, Family::CaptureAll];

    pub fn of(rules: &Rules) -> Family {
        let variant = rules.variant();
        match (variant.win, variant.removal) {
            (WinCondition::CaptureAll, _) => Family::CaptureAll,
            (_, Removal::BoardOrHand | Removal::BoardThenHand) => Family::Hand,
            _ => Family::Board,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Board => "board",
            Family::Hand => "hand",
            Family::CaptureAll => "capture-all",
        }
    }

    pub fn parse(text: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == text)
    }

    pub fn weights(self) -> &'static Weights {
        &FAMILY_WEIGHTS[self as usize]
    }
}

/// Everything the weights multiply: the features of both colours and the
/// two scale factors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    /// `[white, black]`, each from that colour's side.
    pub colours: [[i32; FEATURES]; 2],
    /// 0..=PHASE_MAX: the share of the pieces still in hand.
    pub phase: i32,
    /// 0..=PROGRESS_CAP: plies without a capture, capped.
    pub stale: i32,
    /// `[white, black]`: how far the side ahead stands from the enemy
    /// (`chase_distance`); 0 for the other side and while pieces are in hand.
    pub chase: [i32; 2],
    pub side_to_move: Player,
}

/// The evaluation from the side to move's point of view.
#[inline]
pub fn evaluate(rules: &Rules, pos: &Position) -> i32 {
    let t = terms(rules, pos);
    let white: i32 = t[0].iter().sum();
    let black: i32 = t[1].iter().sum();
    match pos.side_to_move() {
        Player::White => white - black,
        Player::Black => black - white,
    }
}

/// Material only (board and hand pieces), the baseline evaluation that the
/// self-play harness compares the full one against.
#[inline]
pub fn material(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    100 * (pos.total(us) as i32 - pos.total(!us) as i32)
}

/// Every term of the evaluation for both colours. The final score is the sum
/// of the totals, negated when Black is to move.
pub fn explain(rules: &Rules, pos: &Position) -> Vec<EvalTerm> {
    let t = terms(rules, pos);
    TERM_NAMES
        .iter()
        .enumerate()
        .map(|(i, &name)| EvalTerm {
            name,
            white: t[0][i],
            black: t[1][i],
        })
        .collect()
}

/// The weighted terms, `[white, black]`, each from that colour's view.
#[inline]
fn terms(rules: &Rules, pos: &Position) -> [[i32; TERMS]; 2] {
    let set = features(rules, pos);
    let w = Family::of(rules).weights();
    Player::BOTH.map(|p| {
        let on_move = p == set.side_to_move;
        let f = &set.colours[p.index()];
        // The products first, then their sums by term over fixed ranges:
        // the same integers as adding each to its term, without the
        // scattered stores that kept the loop from vectorising.
        let products: [i32; FEATURES] =
            std::array::from_fn(|k| f[k] * w.tapered(k, on_move, set.phase));
        let mut t = [0; TERMS];
        for k in 0..CELLS {
            t[k] = products[k] / PHASE_MAX;
        }
        t[CELLS] = products[CELLS..STUCK].iter().sum::<i32>() / PHASE_MAX;
        for k in STUCK..FEATURES {
            t[k - CELL_CLASSES + 1] = products[k] / PHASE_MAX;
        }
        t[CHASE_TERM] = -CHASE_CP * set.chase[p.index()];
        let sum: i32 = t.iter().sum();
        t[PROGRESS_TERM] = -(sum * set.stale / PROGRESS_SPAN);
        t
    })
}

impl Weights {
    /// The weight of feature `k`, tapered, times `PHASE_MAX`.
    #[inline(always)]
    pub fn tapered(&self, k: usize, on_move: bool, phase: i32) -> i32 {
        let w = &self.0[k];
        let (opening, endgame) = if on_move { (w[0], w[1]) } else { (w[2], w[3]) };
        opening * phase + endgame * (PHASE_MAX - phase)
    }
}

/// The features of both colours (what `yote tune` fits the weights to).
#[inline]
pub fn features(rules: &Rules, pos: &Position) -> FeatureSet {
    let g = rules.geometry();
    let variant = rules.variant();
    // A capture costs the jumped piece plus one extra removal (if any rule
    // removes one); at or below this total one capture loses the game.
    let per_capture = if variant.removal == Removal::None {
        1
    } else {
        2
    };
    let danger_total = variant.loss_threshold() + per_capture;
    let empty = g.board().without(pos.occupied());
    let cells = CellClasses::new(g);
    // Every shift the features need, taken once: the pieces of each colour
    // and the empty cells moved one step in each direction.
    let shifted = |b: Bitboard| Direction::ALL.map(|d| g.shift(b, d));
    let empty_shifted = shifted(empty);
    let pieces_shifted = Player::BOTH.map(|p| shifted(pos.pieces(p)));
    let in_hand = pos.hand(Player::White) + pos.hand(Player::Black);
    let phase = (PHASE_MAX as u32 * in_hand / (2 * u32::from(variant.pieces).max(1))) as i32;
    let colours = Player::BOTH.map(|p| {
        let own = pos.pieces(p);
        let (own_s, enemy_s) = (&pieces_shifted[p.index()], &pieces_shifted[(!p).index()]);
        let contact = contact(own, own_s, enemy_s, &empty_shifted);
        let threatened = contact.threatened.count() as i32;
        let (total, enemy_total) = (pos.total(p) as i32, pos.total(!p) as i32);
        let mut f = [0; FEATURES];
        f[0] = own.count() as i32;
        f[1] = pos.hand(p) as i32;
        let steps = safe_steps(g, own_s, enemy_s, empty.without(contact.exposed));
        f[2] = steps.count as i32;
        f[3] = threatened;
        f[4] = i32::from(threatened >= 2);
        // A single threat can be parried by placing a piece on the landing
        // cell; a piece attacked from two sides, or any threatened piece of
        // a player with nothing left in hand, may not be.
        f[5] = if pos.hand(p) == 0 {
            threatened
        } else {
            contact.twice.count() as i32
        };
        f[6] = contact.attacks as i32 - threatened;
        f[7] = contact.guarded.count() as i32;
        f[8] = i32::from(pos.total(p) <= danger_total);
        f[9] = contact.touching.count() as i32;
        // Being ahead counts for more as pieces come off: trading down
        // when ahead is progress.
        f[10] = if total > enemy_total {
            8 * (total - enemy_total) * i32::from(variant.pieces) / (total + enemy_total)
        } else {
            0
        };
        f[11] = 1;
        for (i, class) in cells.classes.iter().enumerate() {
            f[CELLS + i] = (own & *class).count() as i32;
        }
        // Pieces with no safe step; with nothing in hand and no safe step
        // at all, the player must walk into a capture (or cannot move).
        f[STUCK] = own.without(steps.movable).count() as i32;
        f[STUCK + 1] = i32::from(pos.hand(p) == 0 && f[2] == 0 && own.any());
        f
    });
    FeatureSet {
        colours,
        chase: Player::BOTH.map(|p| chase_distance(g, pos, p)),
        phase,
        stale: pos.plies_since_capture().min(PROGRESS_CAP) as i32,
        side_to_move: pos.side_to_move(),
    }
}

/// With every piece placed and `p` ahead in pieces: the steps between the
/// two armies beyond contact, each piece counted to the nearest enemy one
/// (both colours' pieces). Exact endgame tables say why: in the won 4 v 2
/// and 5 v 2 classes this distance follows the length of the win (0.6
/// correlation with the plies to the next capture), while no fitted term
/// tells the search which quiet step brings a win nearer, so without it
/// leads of a few pieces shuffle to the ply limit.
#[inline]
fn chase_distance(g: &Geometry, pos: &Position, p: Player) -> i32 {
    if pos.hand(Player::White) + pos.hand(Player::Black) != 0 || pos.total(p) <= pos.total(!p) {
        return 0;
    }
    let (own, enemy) = (pos.pieces(p), pos.pieces(!p));
    if own.is_empty() || enemy.is_empty() {
        return 0;
    }
    beyond_contact(g, own, enemy) + beyond_contact(g, enemy, own)
}

/// Σ over `from` pieces of (steps to the nearest `to` piece − 1): the
/// `to` set grown one step at a time, each round adding the pieces of
/// `from` not yet reached. `to` is not empty and every board is a full
/// rectangle, so the growth reaches every piece.
#[inline]
fn beyond_contact(g: &Geometry, from: Bitboard, to: Bitboard) -> i32 {
    let grow = |b: Bitboard| Direction::ALL.iter().fold(b, |acc, &d| acc | g.shift(b, d));
    let mut reached = grow(to);
    let mut sum = 0;
    while from.without(reached).any() {
        sum += from.without(reached).count() as i32;
        reached = grow(reached);
    }
    sum
}

/// The board's cells by distance to the nearest rank edge and file edge
/// (0, 1, 2 or more), corners left out: symmetric on every geometry.
struct CellClasses {
    classes: [Bitboard; CELL_CLASSES],
}

impl CellClasses {
    #[inline(always)]
    fn new(g: &Geometry) -> CellClasses {
        use Direction::{East, North, South, West};
        let b = g.board();
        let inner = |x: Bitboard, a, c| g.shift(x, a) & g.shift(x, c);
        let rank1 = inner(b, North, South);
        let rank2 = inner(rank1, North, South);
        let file1 = inner(b, East, West);
        let file2 = inner(file1, East, West);
        let ranks = [b.without(rank1), rank1.without(rank2), rank2];
        let files = [b.without(file1), file1.without(file2), file2];
        let mut classes = [Bitboard::EMPTY; CELL_CLASSES];
        for (i, class) in classes.iter_mut().enumerate() {
            let k = i + 1;
            *class = ranks[k / 3] & files[k % 3];
        }
        CellClasses { classes }
    }
}

/// The steps of `own` pieces that land on a `safe` cell and do not stop
/// straight in front of an enemy piece (which would jump into the cell just
/// left).
struct SafeSteps {
    count: u32,
    /// Pieces with at least one such step.
    movable: Bitboard,
}

/// `own_s[d]` is the own pieces shifted one step in direction d, and so on.
#[inline(always)]
fn safe_steps(
    g: &Geometry,
    own_s: &[Bitboard; 4],
    enemy_s: &[Bitboard; 4],
    safe: Bitboard,
) -> SafeSteps {
    let mut steps = SafeSteps {
        count: 0,
        movable: Bitboard::EMPTY,
    };
    for d in Direction::ALL {
        let back = d.opposite().index();
        let targets = own_s[d.index()] & safe.without(enemy_s[back]);
        steps.count += targets.count();
        steps.movable |= g.shift(targets, d.opposite());
    }
    steps
}

/// How `own` pieces stand against adjacent `enemy` pieces.
struct Contact {
    /// Own pieces some enemy piece could jump now.
    threatened: Bitboard,
    /// Own pieces that could be jumped from two or more directions.
    twice: Bitboard,
    /// Number of (attacker, victim) pairs.
    attacks: u32,
    /// Own pieces next to an enemy whose landing cell is a friendly piece.
    guarded: Bitboard,
    /// Own pieces next to an enemy piece.
    touching: Bitboard,
    /// Cells (any, empty or not) where an own piece could be jumped: an
    /// enemy on one side, an empty cell on the other.
    exposed: Bitboard,
}

/// A piece v is jumped from direction d when the enemy stands on v - d and
/// v + d is empty; a friendly piece on v + d guards it from that side.
#[inline(always)]
fn contact(
    own: Bitboard,
    own_s: &[Bitboard; 4],
    enemy_s: &[Bitboard; 4],
    empty_s: &[Bitboard; 4],
) -> Contact {
    let mut c = Contact {
        threatened: Bitboard::EMPTY,
        twice: Bitboard::EMPTY,
        attacks: 0,
        guarded: Bitboard::EMPTY,
        touching: Bitboard::EMPTY,
        exposed: Bitboard::EMPTY,
    };
    for d in Direction::ALL {
        let (ahead, back) = (d.index(), d.opposite().index());
        let exposed = enemy_s[ahead] & empty_s[back];
        c.exposed |= exposed;
        let faced = enemy_s[ahead] & own;
        let victims = exposed & own;
        c.twice |= c.threatened & victims;
        c.threatened |= victims;
        c.attacks += victims.count();
        c.guarded |= faced & own_s[back];
        c.touching |= faced;
    }
    c
}

/// How much the side to move would like to remove each enemy piece after a
/// capture (move ordering for the removal choices): enemy pieces that
/// threaten ours first, then those in contact with ours.
#[derive(Clone, Copy)]
pub struct RemovalValues {
    attackers: Bitboard,
    in_contact: Bitboard,
}

impl RemovalValues {
    #[inline]
    pub fn new(rules: &Rules, pos: &Position) -> RemovalValues {
        let g = rules.geometry();
        let us = pos.side_to_move();
        let own = pos.pieces(us);
        let enemy = pos.pieces(!us);
        let empty = g.board().without(pos.occupied());
        let mut attackers = Bitboard::EMPTY;
        let mut in_contact = Bitboard::EMPTY;
        for d in Direction::ALL {
            // Enemy piece on a, our piece on a + d, empty landing on a + 2d.
            let next_to_own = enemy & g.shift(own, d.opposite());
            in_contact |= next_to_own;
            attackers |= next_to_own & g.shift(g.shift(empty, d.opposite()), d.opposite());
        }
        RemovalValues {
            attackers,
            in_contact,
        }
    }

    /// Higher is better; hand removals rank between contact and loose pieces.
    #[inline]
    pub fn score(&self, removed: Bitboard, hand_removed: u32) -> i32 {
        4 * (removed & self.attackers).count() as i32
            + 2 * (removed & self.in_contact).count() as i32
            + removed.count() as i32
            + 2 * hand_removed as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn rules(preset: &str) -> Rules {
        Rules::new(Variant::preset(preset).unwrap()).unwrap()
    }

    #[test]
    fn mirrored_positions_score_alike_for_the_mover() {
        let rules = Rules::standard();
        let white = rules.parse_position("6/2W3/1BWB2/2B3/6 w 8 8 0 5").unwrap();
        let black = rules.parse_position("6/2B3/1WBW2/2W3/6 b 8 8 0 5").unwrap();
        assert_eq!(evaluate(&rules, &white), evaluate(&rules, &black));
    }

    #[test]
    fn explain_sums_to_evaluate_from_the_side_to_move() {
        for preset in ["standard", "hand-removal", "classic"] {
            let rules = rules(preset);
            let pos = rules.parse_position("6/2W3/1BWB2/2B3/6 b 8 8 7 5").unwrap();
            let terms = explain(&rules, &pos);
            assert_eq!(terms.len(), TERMS);
            let sum: i32 = terms.iter().map(EvalTerm::total).sum();
            assert_eq!(evaluate(&rules, &pos), -sum, "{preset}");
        }
    }

    /// Each feature lands in the line `explain` names it by: the named
    /// features each in their own line, the cell classes together in
    /// "cells" (the sums by fixed ranges in `terms`).
    #[test]
    fn every_feature_is_weighted_into_its_own_term() {
        let texts = [
            "6/2W3/1BWB2/2B3/6 b 8 8 7 5",
            "W4B/5B/2W3/5B/W1W1B1 w 0 2 1 18",
        ];
        for preset in ["standard", "hand-removal", "classic"] {
            let rules = rules(preset);
            let w = Family::of(&rules).weights();
            for text in texts {
                let pos = rules.parse_position(text).unwrap();
                let set = features(&rules, &pos);
                let lines = explain(&rules, &pos);
                for p in Player::BOTH {
                    let on_move = p == set.side_to_move;
                    let mut by_name = std::collections::HashMap::new();
                    for (k, name) in FEATURE_NAMES.iter().enumerate() {
                        let line = if name.starts_with("cell-") {
                            "cells"
                        } else {
                            name
                        };
                        let product = set.colours[p.index()][k] * w.tapered(k, on_move, set.phase);
                        *by_name.entry(line).or_insert(0) += product;
                    }
                    for line in &lines {
                        let Some(raw) = by_name.get(line.name) else {
                            continue;
                        };
                        let value = if p == Player::White {
                            line.white
                        } else {
                            line.black
                        };
                        assert_eq!(value, raw / PHASE_MAX, "{preset} {text} {}", line.name);
                    }
                    assert_eq!(
                        by_name.len(),
                        TERMS - 2,
                        "every line but chase and progress"
                    );
                }
            }
        }
    }

    #[test]
    fn threatened_and_guarded_pieces_are_seen() {
        let rules = Rules::standard();
        // White c3 can be jumped by b3 (landing d3 empty), Black b3 by c3.
        let pos = rules.parse_position("6/6/1BW3/6/6 w 11 11 0 2").unwrap();
        let f = features(&rules, &pos).colours;
        assert_eq!((f[0][3], f[1][3]), (1, 1));
        assert_eq!(f[0][7], 0);
        // With a white piece on d3 the landing cell is filled: c3 is guarded.
        let pos = rules.parse_position("6/6/1BWW2/6/6 w 10 11 0 3").unwrap();
        let f = features(&rules, &pos).colours;
        assert_eq!(f[0][3], 0);
        assert_eq!(f[0][7], 1);
    }

    #[test]
    fn a_piece_attacked_from_two_sides_is_a_double_threat_and_undefended() {
        let rules = Rules::standard();
        // White c3 between b3 and c4 attackers, landings d3 and c2 empty.
        let pos = rules.parse_position("6/2B3/1BW3/6/6 b 11 10 0 3").unwrap();
        let f = features(&rules, &pos).colours[0];
        assert_eq!((f[3], f[4], f[5], f[6]), (1, 0, 1, 1));
    }

    #[test]
    fn a_cornered_piece_with_nothing_in_hand_has_no_safe_step() {
        let rules = Rules::standard();
        // White a1 (no hand): a2 and b1 are next to Black a3 / c1 with the
        // far side empty, so every step walks into a jump.
        let pos = rules.parse_position("6/6/B5/6/W1B3 w 0 4 0 30").unwrap();
        let f = features(&rules, &pos).colours[0];
        assert_eq!((f[2], f[STUCK], f[STUCK + 1]), (0, 1, 1));
        // With a piece in hand White can still place: not in zugzwang.
        let pos = rules.parse_position("6/6/B5/6/W1B3 w 1 4 0 30").unwrap();
        assert_eq!(features(&rules, &pos).colours[0][STUCK + 1], 0);
    }

    #[test]
    fn the_side_ahead_is_charged_for_the_distance_to_the_enemy() {
        let rules = Rules::standard();
        let chase = |text: &str| features(&rules, &rules.parse_position(text).unwrap()).chase;
        // White a1, b1, a2, f5 against Black d1, e4 (nothing in hand), in
        // steps beyond contact to the nearest enemy: a1 2 (to d1), b1 1,
        // a2 3, f5 1 (to e4); d1 1 (to b1), e4 1. White is ahead: 7 + 2.
        assert_eq!(chase("5W/4B1/6/W5/WW1B2 w 0 0 0 30"), [9, 0]);
        // The same from Black's turn, and with the colours swapped.
        assert_eq!(chase("5W/4B1/6/W5/WW1B2 b 0 0 0 30"), [9, 0]);
        assert_eq!(chase("5B/4W1/6/B5/BB1W2 w 0 0 0 30"), [0, 9]);
        // Level material, or a piece still in hand: no chase.
        assert_eq!(chase("5W/4B1/6/B5/WW1B2 w 0 0 0 30"), [0, 0]);
        assert_eq!(chase("5W/4B1/6/W5/WW1B2 w 0 1 0 30"), [0, 0]);
    }

    #[test]
    fn chase_is_a_term_of_the_side_ahead_that_shrinks_as_it_closes_in() {
        let rules = Rules::standard();
        let chase = |text: &str| {
            let pos = rules.parse_position(text).unwrap();
            let t = explain(&rules, &pos);
            let term = t.iter().find(|t| t.name == "chase").unwrap();
            (term.white, term.black)
        };
        // White's f5 is 2 steps beyond contact with Black's e3 (and e3 with
        // it), a1, b1 and a2 5 in all, d1 1: 11. On f4, 1 and 1: 9.
        assert_eq!(chase("5W/6/4B1/W5/WW1B2 b 0 0 0 30"), (-4 * 11, 0));
        assert_eq!(chase("6/5W/4B1/W5/WW1B2 b 0 0 0 30"), (-4 * 9, 0));
    }

    #[test]
    fn cell_classes_cover_the_board_but_the_corners_once() {
        for (rows, cols) in [(5, 6), (6, 6), (5, 5), (3, 3), (8, 8)] {
            let g = Geometry::new(rows, cols);
            let classes = CellClasses::new(&g).classes;
            let union = classes.iter().fold(Bitboard::EMPTY, |a, &c| a | c);
            let sum: u32 = classes.iter().map(|c| c.count()).sum();
            assert_eq!(sum, union.count());
            assert_eq!(union.count() + 4, u32::from(rows) * u32::from(cols));
        }
    }

    #[test]
    fn the_value_shrinks_as_plies_pass_without_a_capture() {
        let rules = Rules::standard();
        let fresh = rules.parse_position("6/2W3/1WW3/2B3/6 w 3 1 0 40").unwrap();
        let stale = rules
            .parse_position("6/2W3/1WW3/2B3/6 w 3 1 60 40")
            .unwrap();
        let (a, b) = (evaluate(&rules, &fresh), evaluate(&rules, &stale));
        assert!(a > b && b > 0, "{a} {b}");
    }
}
