//! The learned evaluation: a small network over inputs a Yoté player would
//! name, its first layer kept as an accumulator updated incrementally as
//! the search walks the tree.
//!
//! Inputs, from one player's point of view (a "perspective"):
//! - each cell × own / enemy piece, the cells indexed in a 6-wide frame
//!   (`rank * 6 + file`) so that every board up to 6×6 shares one layout;
//! - own pieces in hand and enemy pieces in hand, one-hot 0..=`MAX_HAND`;
//! - removals owed after a jump (1, 2, 3 or more), own or enemy;
//! - the rules as inputs: removal rule, win condition, what a stuck player
//!   gets, mandatory capture, multi-jumps, bonus turns, own jumps, the
//!   three-piece draw, and the board (5×6, 6×6, 5×5). They are constant in
//!   a game, so they cost nothing incrementally; one network serves every
//!   preset, and the rule families share what they have in common (a
//!   network per family would split already small data seven ways).
//!
//! Network: `INPUTS → HIDDEN` (int16 weights, shared by both perspectives)
//! → both perspectives' accumulators, side to move first, clipped to
//! `0..=QA` → one output (int16 weights) → centipawns. The output layer is
//! one of up to `MAX_BUCKETS`, chosen by the pieces left in the game
//! (`bucket`): what a piece more or a threat is worth changes as the
//! armies thin, and a separate output layer per stage costs nothing in the
//! accumulator. Integer arithmetic
//! throughout, so the auto-vectorised loops and the plain loops give the
//! same bits. Boards and rules the inputs cannot describe (7×7 and up,
//! more than `MAX_HAND` pieces) fall back to the fitted evaluation.
//!
//! Incremental update: the search makes moves by copy (`Rules::after`),
//! so the accumulator of a child is its parent's plus the difference of
//! the two positions — the cells that changed colour by colour, the hand
//! counts and the removals owed — which covers placements, steps, jumps,
//! multi-jumps, removals from board or hand and bonus turns alike. The
//! difference is taken lazily, when a position is evaluated, from the
//! nearest ancestor whose accumulator is known (`NnueStack`).

use super::terms::{PROGRESS_CAP, PROGRESS_SPAN};
use crate::rules::{NoMoves, Player, Position, Removal, Rules, Variant, WinCondition};
use std::sync::OnceLock;

pub const FRAME: usize = 6;
pub const CELLS: usize = FRAME * FRAME;
pub const MAX_HAND: usize = 16;
const HAND_SLOTS: usize = MAX_HAND + 1;
const OWED_SLOTS: usize = 3;

const OWN_CELL: usize = 0;
const ENEMY_CELL: usize = OWN_CELL + CELLS;
const OWN_HAND: usize = ENEMY_CELL + CELLS;
const ENEMY_HAND: usize = OWN_HAND + HAND_SLOTS;
const OWN_OWED: usize = ENEMY_HAND + HAND_SLOTS;
const ENEMY_OWED: usize = OWN_OWED + OWED_SLOTS;
const RULES: usize = ENEMY_OWED + OWED_SLOTS;
/// Removal (4), win (2), no moves (2), five flags, board (3).
const RULE_INPUTS: usize = 16;
pub const INPUTS: usize = RULES + RULE_INPUTS;
/// 128: on data set v1 (5.4 M positions of all seven presets) the
/// correction of 128 units beat a0cca2f by +41.9 ± 30.2 Elo at 1 s + 10 ms
/// where 64 units gave +20.9 ± 27.5 (200 games each, same openings), its
/// held-out loss 0.00347 against 0.00360, for 2–5 % fewer nodes a second
/// (docs/search.md, "The network"). The first networks, on 200 000
/// positions, had 64: more units did not pay for their cost then.
pub const HIDDEN: usize = 128;
/// The boards the network has inputs for.
const BOARDS: [(u8, u8); 3] = [(5, 6), (6, 6), (5, 5)];

/// The first layer's scale: a float weight w is stored as round(w · QA),
/// and the accumulator is clipped to 0..=QA (float 0..=1). The trainer
/// clips first-layer weights to ±1.3, so the at most 45 terms of a sum
/// (44 active inputs on a 6×6 board, the bias) stay inside int16.
pub const QA: i32 = 510;
/// The output layer's scale: large, because rounding the output weights is
/// the larger part of the difference from the float network (a clipped
/// activation of up to QA times a weight of up to 14 · QB, summed over the
/// 2 · HIDDEN halves, stays inside i32 for HIDDEN up to 128).
pub const QB: i32 = 1024;

const MAGIC: &[u8; 8] = b"YOTENNUE";
/// Version 2 added the kind (a whole evaluation or a correction) and the
/// rules the network was trained for; version 3 the output buckets.
/// Version 2 files still read, as one bucket.
pub const FORMAT_VERSION: u32 = 3;
const ONE_BUCKET_VERSION: u32 = 2;
/// Magic, version, inputs, hidden, centipawns per unit, kind, rule sets
/// (and from version 3 the number of output buckets).
const HEADER_LEN: usize = 8 + 6 * 4;
/// More rule sets than the rule inputs can describe is a damaged file.
const MAX_RULE_SETS: u32 = 1 << RULE_INPUTS;

/// Output layers at most: one per `PIECES_PER_BUCKET` pieces left, up to
/// the 32 of a 6×6 game.
pub const MAX_BUCKETS: usize = 8;
/// Pieces left (board and hand, both colours) per output bucket.
pub const PIECES_PER_BUCKET: u32 = 4;

/// The output bucket of `pos` among `buckets`: by the pieces left in the
/// game, 1–4 in the first, 5–8 in the second and so on, the last bucket
/// taking all above (the trainer computes the same from the inputs).
#[inline(always)]
pub fn bucket(pos: &Position, buckets: usize) -> usize {
    let left = pos.total(Player::White) + pos.total(Player::Black);
    ((left.saturating_sub(1) / PIECES_PER_BUCKET) as usize).min(buckets - 1)
}

/// The presets in which the embedded network was measured by match to beat
/// the fitted evaluation, the interval above 0 (docs/search.md, "The
/// network"): the search uses it there by default. In the other rule sets
/// it was trained for it is only a candidate until measured (`SearchFeatures
/// +nnue_all`): all-options, where the embedded network lost −125.0 ± 43.6
/// Elo against a0cca2f at 1 s + 10 ms (200 games).
pub const MEASURED_PRESETS: &[&str] =
    &["standard", "hand-removal", "6x6", "classic", "5x5", "boxed"];

/// Whether the network was measured to win under these rules.
pub fn measured_for(variant: &Variant) -> bool {
    variant
        .preset_name()
        .is_some_and(|name| MEASURED_PRESETS.contains(&name))
}

/// Whether the embedded network has inputs for these rules and was trained
/// on them.
pub fn trained_for(variant: &Variant) -> bool {
    Network::embedded().is_some_and(|net| net.inputs_for(variant).is_some())
}

/// The network the engine embeds (`scripts/training/train_nnue.py` writes it).
static EMBEDDED: &[u8] = include_bytes!("yote.nnue");

/// What a network's output is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The whole evaluation.
    Whole,
    /// A correction added to the fitted evaluation (`eval::evaluate`): the
    /// network learns what the fitted terms miss, so it starts from their
    /// strength instead of having to relearn it from data.
    Correction,
}

/// A network's weights, as read from its file.
pub struct Network {
    kind: Kind,
    /// The rule inputs (`InputMap::rule_mask`) of every rule set the
    /// network was trained on; other rules fall back to the fitted
    /// evaluation, since the network never learned what their inputs mean.
    trained: Vec<u32>,
    /// `[input][hidden]`.
    ft_weights: Vec<[i16; HIDDEN]>,
    ft_bias: [i16; HIDDEN],
    /// Per output bucket: side to move's half, then the other's.
    out_weights: Vec<[[i16; HIDDEN]; 2]>,
    out_bias: Vec<i32>,
    /// Centipawns per unit of the float output (1 / the trainer's K).
    cp_per_unit: i32,
}

#[derive(Debug, PartialEq, Eq)]
pub enum NetworkFileError {
    TooShort,
    BadMagic,
    Version(u32),
    Shape { inputs: u32, hidden: u32 },
    Kind(u32),
    Buckets(u32),
    RuleSets(u32),
    Length { expected: usize, found: usize },
    Checksum { stored: u32, computed: u32 },
}

impl std::fmt::Display for NetworkFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkFileError::TooShort => write!(f, "network file too short"),
            NetworkFileError::BadMagic => write!(f, "not a Yoté network file"),
            NetworkFileError::Version(v) => write!(
                f,
                "network format version {v}, this engine reads {ONE_BUCKET_VERSION} and {FORMAT_VERSION}"
            ),
            NetworkFileError::Shape { inputs, hidden } => write!(
                f,
                "network shape {inputs}x{hidden}, this engine has {INPUTS}x{HIDDEN}"
            ),
            NetworkFileError::Kind(k) => write!(f, "network kind {k}, this engine reads 0 and 1"),
            NetworkFileError::Buckets(n) => write!(
                f,
                "network with {n} output buckets, this engine reads 1 to {MAX_BUCKETS}"
            ),
            NetworkFileError::RuleSets(n) => write!(
                f,
                "network trained for {n} rule sets, at most {MAX_RULE_SETS}"
            ),
            NetworkFileError::Length { expected, found } => {
                write!(f, "network file of {found} bytes, expected {expected}")
            }
            NetworkFileError::Checksum { stored, computed } => write!(
                f,
                "network checksum {stored:08x} stored, {computed:08x} computed"
            ),
        }
    }
}

/// Little-endian reader over the body of a network file.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let (head, rest) = self.bytes.split_at(4);
        self.bytes = rest;
        u32::from_le_bytes(head.try_into().expect("4 bytes"))
    }

    fn i16s<const N: usize>(&mut self) -> [i16; N] {
        let mut out = [0; N];
        for v in &mut out {
            let (head, rest) = self.bytes.split_at(2);
            self.bytes = rest;
            *v = i16::from_le_bytes([head[0], head[1]]);
        }
        out
    }
}

impl Network {
    /// The embedded network, read once; None if it does not read (a test
    /// makes sure it does).
    pub fn embedded() -> Option<&'static Network> {
        static NETWORK: OnceLock<Option<Network>> = OnceLock::new();
        NETWORK
            .get_or_init(|| match Network::read(EMBEDDED) {
                Ok(net) => Some(net),
                Err(e) => {
                    log::warn!("embedded network: {e}; using the fitted evaluation");
                    None
                }
            })
            .as_ref()
    }

    /// Layout (little-endian): "YOTENNUE", version, inputs, hidden,
    /// centipawns per unit, kind (0 whole, 1 correction), number of rule
    /// sets trained for, number of output buckets B (u32 each; version 2
    /// has no B and one bucket); the rule sets' masks (u32 each);
    /// first-layer weights `[input][hidden]` and biases (i16); per bucket
    /// the output weights, side to move's half first (i16); the B output
    /// biases (i32); CRC-32 of everything before it (u32).
    pub fn read(bytes: &[u8]) -> Result<Network, NetworkFileError> {
        if bytes.len() < HEADER_LEN + 4 {
            return Err(NetworkFileError::TooShort);
        }
        if &bytes[..8] != MAGIC {
            return Err(NetworkFileError::BadMagic);
        }
        let mut r = Reader { bytes: &bytes[8..] };
        let version = r.u32();
        if version != FORMAT_VERSION && version != ONE_BUCKET_VERSION {
            return Err(NetworkFileError::Version(version));
        }
        let (inputs, hidden, cp_per_unit) = (r.u32(), r.u32(), r.u32());
        if inputs as usize != INPUTS || hidden as usize != HIDDEN {
            return Err(NetworkFileError::Shape { inputs, hidden });
        }
        let kind = match r.u32() {
            0 => Kind::Whole,
            1 => Kind::Correction,
            k => return Err(NetworkFileError::Kind(k)),
        };
        let rule_sets = r.u32();
        if rule_sets > MAX_RULE_SETS {
            return Err(NetworkFileError::RuleSets(rule_sets));
        }
        let (buckets, header) = if version == ONE_BUCKET_VERSION {
            (1, HEADER_LEN)
        } else if bytes.len() < HEADER_LEN + 8 {
            return Err(NetworkFileError::TooShort);
        } else {
            (r.u32(), HEADER_LEN + 4)
        };
        if !(1..=MAX_BUCKETS as u32).contains(&buckets) {
            return Err(NetworkFileError::Buckets(buckets));
        }
        let buckets = buckets as usize;
        let expected = header
            + 4 * rule_sets as usize
            + 2 * (INPUTS * HIDDEN + HIDDEN)
            + buckets * (2 * 2 * HIDDEN + 4)
            + 4;
        if bytes.len() != expected {
            return Err(NetworkFileError::Length {
                expected,
                found: bytes.len(),
            });
        }
        let (body, tail) = bytes.split_at(expected - 4);
        let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        let computed = crc32fast::hash(body);
        if stored != computed {
            return Err(NetworkFileError::Checksum { stored, computed });
        }
        let trained = (0..rule_sets).map(|_| r.u32()).collect();
        let ft_weights = (0..INPUTS).map(|_| r.i16s::<HIDDEN>()).collect();
        let ft_bias = r.i16s::<HIDDEN>();
        let out_weights = (0..buckets)
            .map(|_| [r.i16s::<HIDDEN>(), r.i16s::<HIDDEN>()])
            .collect();
        let out_bias = (0..buckets).map(|_| r.u32() as i32).collect();
        Ok(Network {
            kind,
            trained,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            cp_per_unit: cp_per_unit as i32,
        })
    }

    /// The output before scaling to centipawns, in units of 1 / (QA · QB),
    /// of `pos` whose accumulator is `acc`: the side to move's accumulator
    /// first, through the output layer of the position's bucket.
    #[inline]
    pub fn raw_output(&self, acc: &Accumulator, pos: &Position) -> i32 {
        let side = pos.side_to_move();
        let b = bucket(pos, self.out_bias.len());
        let us = &acc.0[side.index()];
        let them = &acc.0[(!side).index()];
        self.out_bias[b]
            + dot_clipped(us, &self.out_weights[b][0])
            + dot_clipped(them, &self.out_weights[b][1])
    }

    /// How many output buckets the network has.
    pub fn buckets(&self) -> usize {
        self.out_bias.len()
    }

    /// The evaluation of `pos` whose accumulator is `acc`, for the side to
    /// move: the network's centipawns shrunk as plies pass without a
    /// capture like the fitted evaluation, added to the fitted evaluation
    /// if the network is a correction.
    #[inline]
    pub fn evaluation(&self, rules: &Rules, acc: &Accumulator, pos: &Position) -> i32 {
        let own = shrink(self.centipawns(acc, pos), pos);
        match self.kind {
            Kind::Whole => own,
            Kind::Correction => own + super::terms::evaluate(rules, pos),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The embedded network's kind, None without one.
    pub fn embedded_kind() -> Option<Kind> {
        Network::embedded().map(Network::kind)
    }

    /// The inputs of `variant`, if the network was trained for its rules.
    pub fn inputs_for(&self, variant: &Variant) -> Option<InputMap> {
        InputMap::new(variant).filter(|map| self.trained.contains(&map.rule_mask()))
    }

    /// The output in centipawns for the side to move, before the shrink
    /// for plies without a capture.
    #[inline]
    pub fn centipawns(&self, acc: &Accumulator, pos: &Position) -> i32 {
        let raw = i64::from(self.raw_output(acc, pos));
        let units = i64::from(QA * QB);
        let cp = (raw * i64::from(self.cp_per_unit) + units / 2).div_euclid(units);
        // Far from mate scores, whatever the weights say.
        cp.clamp(-10_000, 10_000) as i32
    }
}

/// Σ clip(a, 0, QA) · w, in a form the compiler vectorises along the
/// arrays (widening multiply-adds); integer, so any order of the sum gives
/// the same result.
#[inline(always)]
fn dot_clipped(a: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    // Clipped first, then multiplied and summed in lanes of one 256-bit
    // register's products: a clip inside the lane loop (the earlier form)
    // made AVX2 targets gather one value per instruction (`vpinsrw`),
    // vectorising across the chunks instead of along them.
    let mut clipped = [0i16; HIDDEN];
    for (c, &a) in clipped.iter_mut().zip(a) {
        *c = a.clamp(0, QA as i16);
    }
    const LANES: usize = 8;
    let mut sums = [0i32; LANES];
    for (a, w) in clipped.chunks_exact(LANES).zip(w.chunks_exact(LANES)) {
        for i in 0..LANES {
            sums[i] += i32::from(a[i]) * i32::from(w[i]);
        }
    }
    sums.iter().sum()
}

/// Both perspectives' first-layer sums, White's then Black's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator(pub [[i16; HIDDEN]; 2]);

/// How a rule set maps to the network's inputs; None for rules it has no
/// inputs for.
#[derive(Clone, Debug)]
pub struct InputMap {
    /// Frame index of every cell of the board.
    frame: [u8; 64],
    /// The active rule inputs.
    rules: Vec<u16>,
}

impl InputMap {
    pub fn new(variant: &Variant) -> Option<InputMap> {
        let board = BOARDS
            .iter()
            .position(|&b| b == (variant.rows, variant.cols))?;
        if usize::from(variant.pieces) > MAX_HAND {
            return None;
        }
        let mut frame = [0; 64];
        let cols = usize::from(variant.cols);
        for (cell, f) in frame
            .iter_mut()
            .enumerate()
            .take(usize::from(variant.rows) * cols)
        {
            *f = ((cell / cols) * FRAME + cell % cols) as u8;
        }
        let removal = match variant.removal {
            Removal::Board => 0,
            Removal::BoardOrHand => 1,
            Removal::BoardThenHand => 2,
            Removal::None => 3,
        };
        let win = match variant.win {
            WinCondition::OneLeft => 4,
            WinCondition::CaptureAll => 5,
        };
        let no_moves = match variant.no_moves {
            NoMoves::Loses => 6,
            NoMoves::MorePieces => 7,
        };
        let mut rules = vec![removal, win, no_moves];
        let flags = [
            variant.mandatory_capture,
            variant.multi_jump,
            variant.bonus_turn,
            variant.jump_own,
            variant.three_draw,
        ];
        rules.extend((0..5).filter(|&i| flags[i]).map(|i| 8 + i as u16));
        rules.push(13 + board as u16);
        Some(InputMap {
            frame,
            rules: rules.into_iter().map(|r| r + RULES as u16).collect(),
        })
    }

    /// Every active input of `pos` from `perspective`'s point of view.
    pub fn active(&self, pos: &Position, perspective: Player) -> Vec<u16> {
        let mut out = self.rules.clone();
        for (colour, base) in [(perspective, OWN_CELL), (!perspective, ENEMY_CELL)] {
            out.extend(pos.pieces(colour).map(|c| self.cell(base, c)));
        }
        out.extend(scalar_inputs(pos, perspective).into_iter().flatten());
        out
    }

    /// The active rule inputs as a bit set (bit i: input `RULES + i`).
    pub fn rule_mask(&self) -> u32 {
        self.rules
            .iter()
            .fold(0, |m, &r| m | 1 << (usize::from(r) - RULES))
    }

    #[inline(always)]
    fn cell(&self, base: usize, cell: u8) -> u16 {
        (base + usize::from(self.frame[usize::from(cell)])) as u16
    }
}

/// The hand and owed-removal inputs of `pos` from `perspective`.
#[inline(always)]
fn scalar_inputs(pos: &Position, perspective: Player) -> [Option<u16>; 3] {
    let hand = |p: Player, base: usize| (base + (pos.hand(p) as usize).min(MAX_HAND)) as u16;
    let owed = pos.owed_removals() as usize;
    let owed_input = (owed > 0).then(|| {
        let base = if pos.side_to_move() == perspective {
            OWN_OWED
        } else {
            ENEMY_OWED
        };
        (base + owed.min(OWED_SLOTS) - 1) as u16
    });
    [
        Some(hand(perspective, OWN_HAND)),
        Some(hand(!perspective, ENEMY_HAND)),
        owed_input,
    ]
}

impl Network {
    /// The accumulator of `pos` computed from scratch.
    pub fn refresh(&self, map: &InputMap, pos: &Position) -> Accumulator {
        let mut acc = Accumulator([self.ft_bias; 2]);
        for p in Player::BOTH {
            for i in map.active(pos, p) {
                add(&mut acc.0[p.index()], &self.ft_weights[usize::from(i)]);
            }
        }
        acc
    }

    /// `child`'s accumulator from `parent`'s (`acc`, updated in place):
    /// only the inputs that differ between the two positions.
    #[inline]
    pub fn update(
        &self,
        map: &InputMap,
        acc: &mut Accumulator,
        parent: &Position,
        child: &Position,
    ) {
        for p in Player::BOTH {
            let a = &mut acc.0[p.index()];
            for (colour, base) in [(p, OWN_CELL), (!p, ENEMY_CELL)] {
                let (before, after) = (parent.pieces(colour), child.pieces(colour));
                let changed = before ^ after;
                for c in changed & before {
                    sub(a, &self.ft_weights[usize::from(map.cell(base, c))]);
                }
                for c in changed & after {
                    add(a, &self.ft_weights[usize::from(map.cell(base, c))]);
                }
            }
            let (before, after) = (scalar_inputs(parent, p), scalar_inputs(child, p));
            for (b, c) in before.into_iter().zip(after) {
                if b != c {
                    if let Some(i) = b {
                        sub(a, &self.ft_weights[usize::from(i)]);
                    }
                    if let Some(i) = c {
                        add(a, &self.ft_weights[usize::from(i)]);
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn add(a: &mut [i16; HIDDEN], w: &[i16; HIDDEN]) {
    for (a, &w) in a.iter_mut().zip(w) {
        *a = a.wrapping_add(w);
    }
}

#[inline(always)]
fn sub(a: &mut [i16; HIDDEN], w: &[i16; HIDDEN]) {
    for (a, &w) in a.iter_mut().zip(w) {
        *a = a.wrapping_sub(w);
    }
}

/// The network's evaluation along one search path: the position and
/// accumulator of every ply, the accumulators brought up to date only
/// when a position is evaluated.
pub struct NnueStack {
    net: &'static Network,
    map: InputMap,
    positions: Vec<Position>,
    accs: Vec<Accumulator>,
    /// `accs[ply]` belongs to `positions[ply]`.
    valid: Vec<bool>,
}

impl NnueStack {
    /// None when the network has no inputs for these rules (or the
    /// embedded network does not read).
    pub fn new(rules: &Rules, plies: usize) -> Option<NnueStack> {
        NnueStack::with_network(Network::embedded()?, rules, plies)
    }

    pub fn with_network(net: &'static Network, rules: &Rules, plies: usize) -> Option<NnueStack> {
        let map = net.inputs_for(rules.variant())?;
        let start = rules.start_position();
        Some(NnueStack {
            net,
            map,
            positions: vec![start; plies],
            accs: vec![Accumulator([[0; HIDDEN]; 2]); plies],
            valid: vec![false; plies],
        })
    }

    /// The search reached `pos` at `ply` (every shallower ply holds its
    /// ancestors).
    #[inline(always)]
    pub fn set(&mut self, ply: usize, pos: &Position) {
        self.positions[ply] = *pos;
        self.valid[ply] = false;
    }

    /// The accumulator of the position at `ply`, brought up to date from
    /// the nearest known ancestor (from scratch at the root).
    pub fn accumulator(&mut self, ply: usize) -> &Accumulator {
        let mut known = ply;
        while known > 0 && !self.valid[known] {
            known -= 1;
        }
        if !self.valid[known] {
            self.accs[known] = self.net.refresh(&self.map, &self.positions[known]);
            self.valid[known] = true;
        }
        for i in known + 1..=ply {
            let (done, rest) = self.accs.split_at_mut(i);
            rest[0] = done[i - 1];
            self.net.update(
                &self.map,
                &mut rest[0],
                &self.positions[i - 1],
                &self.positions[i],
            );
            self.valid[i] = true;
        }
        &self.accs[ply]
    }

    /// The evaluation of `pos`, the position at `ply`, for the side to move, in
    /// centipawns (see `Network::evaluation`).
    #[inline]
    pub fn evaluate(&mut self, rules: &Rules, ply: usize, pos: &Position) -> i32 {
        self.accumulator(ply);
        let acc = &self.accs[ply];
        // In the crate's own tests every evaluation the search makes is
        // checked against a refresh of the position it asks about, which
        // proves that the search's `set` calls keep the stack on its path.
        #[cfg(test)]
        assert_eq!(
            (self.positions[ply], *acc),
            (*pos, self.net.refresh(&self.map, pos))
        );
        self.net.evaluation(rules, acc, pos)
    }
}

/// The evaluation shrinks by up to a half as plies pass without a
/// capture (`eval::PROGRESS_CAP`): the same pull towards captures the
/// fitted evaluation has, outside the network, which does not see the
/// counter.
#[inline(always)]
fn shrink(cp: i32, pos: &Position) -> i32 {
    let stale = pos.plies_since_capture().min(PROGRESS_CAP) as i32;
    cp - cp * stale / PROGRESS_SPAN
}

/// The network's evaluation of one position from scratch (the `eval`
/// command); None for rules it has no inputs for.
pub fn evaluate(rules: &Rules, pos: &Position) -> Option<i32> {
    let net = Network::embedded()?;
    let map = net.inputs_for(rules.variant())?;
    let acc = net.refresh(&map, pos);
    Some(net.evaluation(rules, &acc, pos))
}

/// The active inputs of `pos`, side to move's perspective first: what the
/// training data holds for each position.
pub fn training_inputs(rules: &Rules, pos: &Position) -> Option<[Vec<u16>; 2]> {
    let map = InputMap::new(rules.variant())?;
    let us = pos.side_to_move();
    Some([map.active(pos, us), map.active(pos, !us)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_network_reads() {
        assert!(Network::read(EMBEDDED).is_ok());
        assert!(Network::embedded().is_some());
    }

    #[test]
    fn damaged_files_are_refused_by_name() {
        let mut bytes = EMBEDDED.to_vec();
        let last = bytes.len() - 10;
        bytes[last] ^= 1;
        assert!(matches!(
            Network::read(&bytes),
            Err(NetworkFileError::Checksum { .. })
        ));
        assert_eq!(
            Network::read(&bytes[..20]).err(),
            Some(NetworkFileError::TooShort)
        );
        assert_eq!(
            Network::read(&bytes[..bytes.len() - 2]).err(),
            Some(NetworkFileError::Length {
                expected: bytes.len(),
                found: bytes.len() - 2
            })
        );
        let mut other = EMBEDDED.to_vec();
        other[8] = 9;
        assert_eq!(
            Network::read(&other).err(),
            Some(NetworkFileError::Version(9))
        );
        let mut kind = EMBEDDED.to_vec();
        kind[24] = 7;
        let end = kind.len() - 4;
        let crc = crc32fast::hash(&kind[..end]).to_le_bytes();
        kind[end..].copy_from_slice(&crc);
        assert_eq!(Network::read(&kind).err(), Some(NetworkFileError::Kind(7)));
        let mut sets = EMBEDDED.to_vec();
        sets[28..32].copy_from_slice(&(MAX_RULE_SETS + 1).to_le_bytes());
        assert_eq!(
            Network::read(&sets).err(),
            Some(NetworkFileError::RuleSets(MAX_RULE_SETS + 1))
        );
        for buckets in [0, MAX_BUCKETS + 1] {
            let mut file = compose(&parts(EMBEDDED), FORMAT_VERSION, 1, false);
            file[32..36].copy_from_slice(&(buckets as u32).to_le_bytes());
            assert_eq!(
                Network::read(&file).err(),
                Some(NetworkFileError::Buckets(buckets as u32))
            );
        }
        other[0] = b'X';
        assert_eq!(
            Network::read(&other).err(),
            Some(NetworkFileError::BadMagic)
        );
    }

    #[test]
    fn the_vectorised_dot_equals_the_plain_sum() {
        let net = Network::read(&compose(
            &parts(EMBEDDED),
            FORMAT_VERSION,
            MAX_BUCKETS,
            true,
        ))
        .unwrap();
        let rules = Rules::standard();
        let map = InputMap::new(rules.variant()).unwrap();
        for text in [
            "6/2W3/1BWB2/2B3/6 b 8 8 7 5",
            "6/2W3/1BWB2/2B3/6 w 8 8 7 5",
            "6/2W3/1BW3/6/6 w 0 1 7 5",
        ] {
            let pos = rules.parse_position(text).unwrap();
            let acc = net.refresh(&map, &pos);
            let side = pos.side_to_move();
            let b = bucket(&pos, MAX_BUCKETS);
            let mut plain: i64 = i64::from(net.out_bias[b]);
            for half in 0..2 {
                let a = &acc.0[if half == 0 { side } else { !side }.index()];
                for (&a, &w) in a.iter().zip(&net.out_weights[b][half]) {
                    plain += i64::from(a).clamp(0, i64::from(QA)) * i64::from(w);
                }
            }
            assert_eq!(i64::from(net.raw_output(&acc, &pos)), plain, "{text}");
        }
    }

    /// A network file taken apart: the header through the kind, the
    /// rule-set masks, the first layer, each bucket's output weights and
    /// the output biases, as bytes.
    struct Parts {
        head: Vec<u8>,
        masks: Vec<u32>,
        first: Vec<u8>,
        outs: Vec<Vec<u8>>,
        biases: Vec<i32>,
    }

    fn parts(bytes: &[u8]) -> Parts {
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let count = word(28) as usize;
        let (buckets, mut at) = if word(8) == ONE_BUCKET_VERSION {
            (1, 32)
        } else {
            (word(32) as usize, 36)
        };
        let masks = (0..count).map(|i| word(at + 4 * i)).collect();
        at += 4 * count;
        let first_len = 2 * (INPUTS * HIDDEN + HIDDEN);
        let first = bytes[at..at + first_len].to_vec();
        at += first_len;
        let outs = (0..buckets)
            .map(|i| bytes[at + 4 * HIDDEN * i..at + 4 * HIDDEN * (i + 1)].to_vec())
            .collect();
        at += 4 * HIDDEN * buckets;
        let biases = (0..buckets).map(|i| word(at + 4 * i) as i32).collect();
        Parts {
            head: bytes[..28].to_vec(),
            masks,
            first,
            outs,
            biases,
        }
    }

    /// A file of `version` from `p` with `buckets` output buckets (cycling
    /// through `p`'s); with `tag` each bucket's bias 10⁶ · its number above
    /// the one it copies, so that an output tells which bucket spoke.
    fn compose(p: &Parts, version: u32, buckets: usize, tag: bool) -> Vec<u8> {
        let mut bytes = p.head.clone();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        bytes.extend((p.masks.len() as u32).to_le_bytes());
        if version != ONE_BUCKET_VERSION {
            bytes.extend((buckets as u32).to_le_bytes());
        }
        for m in &p.masks {
            bytes.extend(m.to_le_bytes());
        }
        bytes.extend(&p.first);
        let n = p.outs.len();
        for i in 0..buckets {
            bytes.extend(&p.outs[i % n]);
        }
        for i in 0..buckets {
            let tag = if tag { 1_000_000 * i as i32 } else { 0 };
            bytes.extend((p.biases[i % n] + tag).to_le_bytes());
        }
        bytes.extend(crc32fast::hash(&bytes).to_le_bytes());
        bytes
    }

    /// The bucket is the pieces left (board and hand, both colours), four
    /// to a bucket, the last bucket taking the rest; a version 2 file reads
    /// as one bucket with the same output as a version 3 file of one.
    #[test]
    fn the_output_bucket_follows_the_pieces_left() {
        let rules = Rules::standard();
        let map = InputMap::new(rules.variant()).unwrap();
        // One output layer, copied to every bucket with its tag.
        let mut p = parts(EMBEDDED);
        p.outs.truncate(1);
        p.biases.truncate(1);
        let eight = Network::read(&compose(&p, FORMAT_VERSION, 8, true)).unwrap();
        let three = Network::read(&compose(&p, FORMAT_VERSION, 3, true)).unwrap();
        let one = Network::read(&compose(&p, FORMAT_VERSION, 1, true)).unwrap();
        let old = Network::read(&compose(&p, ONE_BUCKET_VERSION, 1, true)).unwrap();
        assert_eq!((eight.buckets(), three.buckets(), old.buckets()), (8, 3, 1));
        // (position, pieces left)
        for (text, left) in [
            ("6/6/6/6/6 w 12 12 0 1", 24),
            ("6/2W3/1BWB2/2B3/6 b 8 8 7 5", 21),
            ("6/2W3/1BW3/6/6 w 0 2 7 5", 5),
            ("6/2W3/6/6/6 w 0 3 7 5", 4),
            ("6/2W3/1B4/6/6 w 0 0 7 5", 2),
        ] {
            let pos = rules.parse_position(text).unwrap();
            assert_eq!(pos.total(Player::White) + pos.total(Player::Black), left);
            let want = (left as usize - 1) / 4;
            assert_eq!(bucket(&pos, 8), want, "{text}");
            assert_eq!(bucket(&pos, 3), want.min(2), "{text}");
            assert_eq!(bucket(&pos, 1), 0, "{text}");
            let acc = eight.refresh(&map, &pos);
            let base = one.raw_output(&acc, &pos);
            assert_eq!(old.raw_output(&acc, &pos), base, "{text}");
            assert_eq!(eight.raw_output(&acc, &pos) - base, 1_000_000 * want as i32);
            assert_eq!(
                three.raw_output(&acc, &pos) - base,
                1_000_000 * want.min(2) as i32
            );
        }
    }

    #[test]
    fn rules_without_inputs_have_no_network() {
        let big = Variant::from_spec("rows=7,cols=7").unwrap();
        assert!(InputMap::new(&big).is_none());
        let many = Variant::from_spec("pieces=20").unwrap();
        assert!(InputMap::new(&many).is_none());
        for preset in Variant::PRESETS {
            assert!(InputMap::new(&preset.variant).is_some(), "{}", preset.name);
        }
    }

    /// The embedded network with its list of rule sets replaced.
    fn trained_for(variants: &[Variant]) -> Network {
        let mut p = parts(EMBEDDED);
        p.masks = variants
            .iter()
            .map(|v| InputMap::new(v).unwrap().rule_mask())
            .collect();
        let buckets = p.outs.len();
        Network::read(&compose(&p, FORMAT_VERSION, buckets, false)).unwrap()
    }

    /// A network is used only for the rule sets it was trained on.
    #[test]
    fn rules_the_network_was_not_trained_for_fall_back() {
        let net: &'static Network = Box::leak(Box::new(trained_for(&[Variant::STANDARD])));
        let standard = Rules::standard();
        assert!(NnueStack::with_network(net, &standard, 4).is_some());
        for preset in Variant::PRESETS
            .iter()
            .filter(|p| p.variant != Variant::STANDARD)
        {
            let rules = Rules::new(preset.variant).unwrap();
            assert!(
                NnueStack::with_network(net, &rules, 4).is_none(),
                "{}",
                preset.name
            );
        }
    }

    /// Inputs are distinct, inside the layout, and swap between the two
    /// perspectives (an own piece for one is an enemy piece for the other).
    #[test]
    fn perspectives_mirror_each_other() {
        let rules = Rules::standard();
        let pos = rules.parse_position("6/2W3/1BWB2/2B3/6 b 8 8 7 5").unwrap();
        let map = InputMap::new(rules.variant()).unwrap();
        let (w, b) = (
            map.active(&pos, Player::White),
            map.active(&pos, Player::Black),
        );
        let swap = |i: u16| {
            let i = usize::from(i);
            (match i {
                _ if i < ENEMY_CELL => i + CELLS,
                _ if i < OWN_HAND => i - CELLS,
                _ if i < ENEMY_HAND => i + HAND_SLOTS,
                _ if i < OWN_OWED => i - HAND_SLOTS,
                _ => i,
            }) as u16
        };
        let mut mirrored: Vec<u16> = w.iter().map(|&i| swap(i)).collect();
        let mut b_sorted = b.clone();
        mirrored.sort_unstable();
        b_sorted.sort_unstable();
        assert_eq!(mirrored, b_sorted);
        assert!(w.iter().all(|&i| usize::from(i) < INPUTS));
        let mut dedup = w.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), w.len());
    }

    /// Float outputs of held-out positions written by the trainer with the
    /// network it exported (`scripts/training/train_nnue.py`).
    const FIXTURE: &str = include_str!("nnue_fixture.txt");
    /// Rounding each first-layer weight to 1/QA and each output weight to
    /// 1/QB, and the output to whole centipawns: 1.1 cp at most on the
    /// fixture of the first trained network (with QA 255 and QB 64 it was
    /// 9.7 cp, which is why the scales are larger).
    const FIXTURE_TOLERANCE_CP: f64 = 3.0;

    #[test]
    fn integer_inference_matches_the_trainer() {
        let net = Network::embedded().unwrap();
        let (mut checked, mut worst) = (0, 0f64);
        for line in FIXTURE.lines().filter(|l| !l.starts_with('#')) {
            let fields: Vec<&str> = line.split('\t').collect();
            let rules = Rules::new(Variant::from_spec(fields[0]).unwrap()).unwrap();
            let pos = rules.parse_position(fields[1]).unwrap();
            let float: f64 = fields[2].parse().unwrap();
            let acc = net.refresh(&InputMap::new(rules.variant()).unwrap(), &pos);
            let int = f64::from(net.centipawns(&acc, &pos));
            assert!(
                (int - float).abs() <= FIXTURE_TOLERANCE_CP,
                "{line}: engine {int}, trainer {float}"
            );
            checked += 1;
            worst = worst.max((int - float).abs());
        }
        assert!(checked >= 10, "only {checked} fixture positions");
        eprintln!("{checked} positions, largest difference {worst:.2} cp");
    }

    /// What a random walk went through, so that the test can insist on it.
    #[derive(Default)]
    struct Seen {
        captures: u32,
        removals: u32,
        hand_removals: u32,
        multi_jumps: u32,
        bonus_turns: u32,
        owed: u32,
    }

    /// Random walks that go down and back up like a search, through every
    /// kind of move (captures preferred, some split into a jump and its
    /// owed removals): after every step the incrementally updated
    /// accumulator equals a refresh from scratch.
    #[test]
    fn the_incremental_accumulator_equals_a_refresh_in_every_preset() {
        // The embedded weights, whatever rule sets they were trained for.
        let presets: Vec<Variant> = Variant::PRESETS.iter().map(|p| p.variant).collect();
        let net: &'static Network = Box::leak(Box::new(trained_for(&presets)));
        for preset in Variant::PRESETS {
            let rules = Rules::new(preset.variant).unwrap();
            let mut stack = NnueStack::with_network(net, &rules, 64).unwrap();
            let mut rng = crate::rng::SplitMix64::new(7);
            let mut seen = Seen::default();
            for _ in 0..40 {
                walk(&rules, &mut stack, &mut rng, &mut seen);
            }
            let name = preset.name;
            assert!(
                seen.captures > 20 && seen.removals > 10 && seen.owed > 5,
                "{name}"
            );
            if preset.variant.multi_jump {
                assert!(seen.multi_jumps > 0, "{name}");
            }
            if preset.variant.bonus_turn {
                assert!(seen.bonus_turns > 0, "{name}");
            }
            if name == "hand-removal" {
                assert!(seen.hand_removals > 0, "{name}");
            }
        }
    }

    fn walk(
        rules: &Rules,
        stack: &mut NnueStack,
        rng: &mut crate::rng::SplitMix64,
        seen: &mut Seen,
    ) {
        let mut path = vec![rules.start_position()];
        stack.set(0, &path[0]);
        let mut list = crate::rules::MoveList::new();
        for _ in 0..120 {
            // Back up a few plies now and then, as a search does.
            if path.len() > 3 && rng.below(4) == 0 {
                let keep = path.len() - 1 - rng.below(3);
                path.truncate(keep);
            }
            let pos = *path.last().unwrap();
            rules.legal_moves(&pos, &mut list);
            let moves: Vec<_> = list.iter().copied().collect();
            if moves.is_empty() || rules.status(&pos).is_some() || path.len() >= 60 {
                break;
            }
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).copied().collect();
            let mv = if !captures.is_empty() && rng.below(3) > 0 {
                captures[rng.below(captures.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            let split = rng.below(3) == 0;
            let children = match rules.split_capture(&pos, &mv) {
                Some((jumped, finish)) if split => vec![jumped, rules.after(&jumped, &finish)],
                _ => vec![rules.after(&pos, &mv)],
            };
            seen.captures += u32::from(mv.is_capture());
            seen.removals += mv.removed().count() + mv.hand_removed();
            seen.hand_removals += mv.hand_removed();
            seen.multi_jumps += u32::from(mv.captured().count() > 1);
            seen.owed += u32::from(children.len() > 1);
            seen.bonus_turns += u32::from(
                mv.is_capture() && children.last().unwrap().side_to_move() == pos.side_to_move(),
            );
            for child in children {
                path.push(child);
                let ply = path.len() - 1;
                stack.set(ply, &child);
                // Evaluate only some positions: the update then spans
                // several plies at once.
                if rng.below(2) == 0 {
                    let map = InputMap::new(rules.variant()).unwrap();
                    let fresh = stack.net.refresh(&map, &child);
                    assert_eq!(
                        *stack.accumulator(ply),
                        fresh,
                        "{}",
                        rules.position_text(&child)
                    );
                }
            }
        }
    }

    /// Searches with the network in every preset; each evaluation is
    /// checked against a refresh (`NnueStack::evaluate` under test).
    #[test]
    fn searches_keep_the_accumulators_on_their_path() {
        use crate::search::{Limits, SearchOptions, SearchRequest, Signals, driver, tt};
        let mut options = SearchOptions::default();
        options.features.nnue_all = true;
        for (spec, text) in crate::search::bench::POSITIONS {
            let rules = Rules::new(Variant::from_spec(spec).unwrap()).unwrap();
            let pos = rules.parse_position(text).unwrap();
            let game = crate::rules::Game::from_position(rules, pos);
            let request = SearchRequest {
                limits: Limits {
                    depth: Some(5),
                    ..Limits::default()
                },
                searchmoves: Vec::new(),
            };
            let table = tt::TranspositionTable::new(1);
            let result = driver::search(
                &game,
                &request,
                &options,
                &table,
                &Signals::default(),
                &mut |_| {},
            );
            assert!(result.best.is_some(), "{spec}");
        }
    }
}
