//! `yote tune`: fits the evaluation's weights to recorded games
//! (Texel-style logistic regression).
//!
//! Every position of every game (records of the match runner, e.g. from
//! `scripts/training/datagen.sh`) whose rule family is the one being fitted is kept
//! if it is quiet (the side to move has no capture; the game is not over)
//! and not seen before. Its label blends the game's result for the side to
//! move with a short search's score, both mapped to an expected score:
//! `y = λ·result + (1 − λ)·σ(K·search)`. The weights minimise the mean
//! squared error of `σ(K·eval)` against `y` (full-batch Adam, so the fit is
//! deterministic); the seed only chooses which positions are held out to
//! check the fit. `K` is fitted first, to the starting weights, so that the
//! fitted values stay in the same units (100 ≈ one piece).
//!
//! With `--tablebases`, a position the tables hold gets its exact value as
//! label instead (win 1, draw ½, loss 0 for the side to move, whatever λ),
//! where the history rules cannot change it: the search's own test
//! (`search::tables::Prober`), with the game's moves as history.

use crate::analysis::GameInput;
use crate::client::records::{GameRecord, GameResult};
use crate::eval::weights::Weights;
use crate::eval::{self, FEATURE_NAMES, FEATURES, Family, PHASE_MAX, PROGRESS_SPAN};
use crate::rng::SplitMix64;
use crate::rules::{Game, Player, Position, Rules, Variant};
use crate::search::tables::{Prober, Tables};
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Score, SearchEvent, SearchOptions, SearchRequest, Signals, driver};
use crate::tablebase::{self, file::table_rules};
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

/// Weights per family: four per feature.
const PARAMS: usize = 4 * FEATURES;

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Game records (the match runner's `--pgn` files).
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// Rule family to fit: board, hand or capture-all.
    #[arg(long, default_value = "board")]
    pub family: String,
    /// Share of the label taken from the game result (the rest from the search score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Depth of the search that scores each position (0: no search, result only).
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Passes of gradient descent over all positions.
    #[arg(long, default_value_t = 1500)]
    pub iterations: usize,
    /// Plies at the start of each game to skip (the random opening).
    #[arg(long, default_value_t = 6)]
    pub skip: usize,
    /// Positions drawn (by the seed) from each game, so that long shuffling
    /// games do not outweigh short decisive ones.
    #[arg(long, default_value_t = 40)]
    pub per_game: usize,
    /// Pull of each weight towards its starting value (L2), per position.
    #[arg(long, default_value_t = 1e-7)]
    pub ridge: f64,
    /// Keep games the runner ended at its ply limit (left out by default:
    /// that draw says how the players shuffled, not what the position was
    /// worth).
    #[arg(long)]
    pub keep_max_plies: bool,
    /// Seed of the positions drawn from each game and of the held-out split
    /// (one position in ten).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Endgame table directories (`:`-separated, as the engine's
    /// TablebasePath): positions they hold are labelled with their exact
    /// value. The tables must be of the rules of some of the games fitted.
    #[arg(long, value_name = "DIRS")]
    pub tablebases: Option<String>,
    /// Largest tables used, in pieces (as the engine's TablebasePieces;
    /// default: every table found).
    #[arg(long, default_value_t = 32)]
    pub tablebase_pieces: u32,
    /// Write the labelled positions as training data for the network
    /// (`scripts/training/train_nnue.py`) to this file instead of fitting weights;
    /// `--family all` keeps every rule set the network has inputs for.
    #[arg(long, value_name = "FILE")]
    pub dump: Option<PathBuf>,
}

/// One training position: what the model reads of it (`x`) and its label.
struct Sample<X = Linear> {
    x: X,
    /// The game's result for the side to move, or the tables' exact value.
    result: f32,
    /// None for a mate score and for positions labelled by the tables, so
    /// that the label is `result` alone.
    search: Option<i32>,
}

pub fn run(args: TuneArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&args.lambda) {
        bail!("--lambda must be between 0 and 1");
    }
    if let Some(path) = &args.dump {
        return dump(&args, path);
    }
    let family = Family::parse(&args.family).with_context(|| {
        format!(
            "unknown family {:?} (board, hand, capture-all)",
            args.family
        )
    })?;
    let (samples, _) = collect(&args, Some(family), |rules, pos| {
        weighted_features(&eval::features(rules, pos))
    })?;
    if samples.len() < 100 {
        bail!(
            "only {} positions of family {}",
            samples.len(),
            family.name()
        );
    }
    let start = flatten(family.weights());
    let mut rng = SplitMix64::new(args.seed);
    let (train, test): (Vec<Sample>, Vec<Sample>) = samples
        .into_iter()
        .partition(|_| !rng.next_u64().is_multiple_of(10));
    let k = fit_k(&train, &start);
    let labels = |set: &[Sample]| -> Vec<f64> {
        set.iter()
            .map(|s| {
                let search = s
                    .search
                    .map_or(f64::from(s.result), |v| sigmoid(k * f64::from(v)));
                args.lambda * f64::from(s.result) + (1.0 - args.lambda) * search
            })
            .collect()
    };
    let (y_train, y_test) = (labels(&train), labels(&test));
    eprintln!(
        "tune: {} training, {} held-out positions; K = {k:.5}; start: train {:.6}, held-out {:.6}",
        train.len(),
        test.len(),
        loss(&train, &y_train, &start, k),
        loss(&test, &y_test, &start, k)
    );
    let fitted = descend(&train, &y_train, &start, k, &args);
    let rounded: Vec<f64> = fitted.iter().map(|w| w.round()).collect();
    eprintln!(
        "tune: fitted: train {:.6}, held-out {:.6}",
        loss(&train, &y_train, &rounded, k),
        loss(&test, &y_test, &rounded, k)
    );
    print!("{}", weights_source(family, &rounded));
    Ok(())
}

/// `--dump`: one line per labelled position, tab-separated: the rules
/// (`Variant::spec`), the position, the result for the side to move (or
/// the tables' exact value), the search score in centipawns (`-` for a
/// mate score or a table value), the fitted evaluation's static score (what
/// a network trained as a correction to it starts from), then the
/// network's active inputs from the side to move's and from the other
/// side's view (comma-separated). The
/// trainer blends result and score itself, so λ can change without a new
/// dump. Written to `FILE.part` and renamed when complete, so that a
/// script can tell a finished dump from an interrupted one.
fn dump(args: &TuneArgs, path: &std::path::Path) -> Result<()> {
    let family =
        match args.family.as_str() {
            "all" => None,
            name => Some(Family::parse(name).with_context(|| {
                format!("unknown family {name:?} (board, hand, capture-all, all)")
            })?),
        };
    let (samples, exact) = collect(args, family, |rules, pos| {
        let inputs = crate::eval::nnue::training_inputs(rules, pos)?;
        let list = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
        let position = format!("{}\t{}", rules.variant().spec(), rules.position_text(pos));
        let fitted = eval::evaluate(rules, pos);
        Some((
            position,
            format!("{fitted}\t{}\t{}", list(&inputs[0]), list(&inputs[1])),
        ))
    })?;
    let part = path.with_extension("part");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&part).with_context(|| format!("creating {}", part.display()))?,
    );
    let mut written = 0;
    for s in &samples {
        let Some((position, inputs)) = &s.x else {
            continue;
        };
        let search = s.search.map_or("-".to_string(), |v| v.to_string());
        writeln!(out, "{position}\t{}\t{search}\t{inputs}", s.result)?;
        written += 1;
    }
    out.flush()?;
    drop(out);
    std::fs::rename(&part, path).with_context(|| format!("writing {}", path.display()))?;
    eprintln!(
        "tune: {written} positions written to {} ({exact} labelled by the tables)",
        path.display()
    );
    Ok(())
}

/// Reads the records (of `family`, or of every family) and turns their
/// quiet, new positions into samples, `read` saying what the model sees of
/// each; also returns how many of them the tables labelled.
fn collect<X>(
    args: &TuneArgs,
    family: Option<Family>,
    mut read: impl FnMut(&Rules, &Position) -> X,
) -> Result<(Vec<Sample<X>>, usize)> {
    let games = read_games(args, family)?;
    let tables = match &args.tablebases {
        Some(paths) => TableLabels::load(paths, args.tablebase_pieces, &games)?,
        None => TableLabels::default(),
    };
    let mut seen = HashSet::new();
    let mut samples = Vec::new();
    let mut exact = 0;
    let mut overruled = 0;
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let options = SearchOptions::default();
    let mut rng = SplitMix64::derived(args.seed, 1);
    for (done, (input, white_score)) in games.iter().enumerate() {
        let mut game = Game::from_position(input.rules.clone(), input.start);
        let mut candidates = Vec::new();
        for (ply, mv) in input.moves.iter().enumerate() {
            let pos = game.position();
            let quiet = game.status().is_none() && !input.rules.has_capture(pos);
            if ply >= args.skip && quiet && seen.insert(pos.key()) {
                candidates.push(game.clone());
            }
            game.play(mv);
        }
        rng.shuffle(&mut candidates);
        candidates.truncate(args.per_game);
        for game in &candidates {
            let pos = game.position();
            let result = match pos.side_to_move() {
                Player::White => *white_score,
                Player::Black => 1.0 - white_score,
            };
            let (result, search) = match tables.value(game) {
                Some(value) => {
                    exact += 1;
                    overruled += usize::from(value != result);
                    (value, None)
                }
                None => {
                    let search = (args.depth > 0)
                        .then(|| search_score(game, args.depth, &options, &tt, &signals))
                        .flatten();
                    (result, search)
                }
            };
            samples.push(Sample {
                x: read(&input.rules, pos),
                result,
                search,
            });
        }
        if (done + 1) % 200 == 0 {
            eprintln!("tune: {} games, {} positions", done + 1, samples.len());
        }
    }
    let labelled = match args.tablebases {
        Some(_) => format!(
            ", {exact} of them labelled by the tablebases ({overruled} against the game's result)"
        ),
        None => String::new(),
    };
    eprintln!(
        "tune: {} games, {} positions{labelled}",
        games.len(),
        samples.len()
    );
    Ok((samples, exact))
}

/// The finished games of `family` in the records, each with White's score
/// (1, ½ or 0).
fn read_games(args: &TuneArgs, family: Option<Family>) -> Result<Vec<(GameInput, f32)>> {
    let mut games = Vec::new();
    for path in &args.records {
        let text =
            crate::textfile::read(path).with_context(|| format!("reading {}", path.display()))?;
        let records = GameRecord::parse_all(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e:?}", path.display()))?;
        for (i, record) in records.into_iter().enumerate() {
            let input = GameInput::from_record(record, &Variant::STANDARD, i + 1)
                .with_context(|| format!("{}", path.display()))?;
            if family.is_some_and(|f| Family::of(&input.rules) != f) {
                continue;
            }
            let white_score = match input.record.result {
                GameResult::WhiteWins => 1.0,
                GameResult::BlackWins => 0.0,
                GameResult::Draw => 0.5,
                GameResult::Unfinished => continue,
            };
            if !args.keep_max_plies && input.record.tag("Termination") == Some("max plies") {
                continue;
            }
            games.push((input, white_score));
        }
    }
    Ok(games)
}

/// Endgame tables for the games' rule sets: those of the tables' rules
/// (records may mix presets of one family, tables are made for one rule
/// set; the history rules may differ, the prober judges them per game).
#[derive(Default)]
struct TableLabels {
    sets: Vec<Tables>,
}

impl TableLabels {
    /// Loads the tables of `paths` for every rule set among `games`. A
    /// missing directory, a damaged file, or tables for none of the games'
    /// rules stop the run rather than fitting without the labels asked for.
    fn load(paths: &str, pieces: u32, games: &[(GameInput, f32)]) -> Result<TableLabels> {
        let mut sets = Vec::new();
        let mut refused = Vec::new();
        let mut tried = HashSet::new();
        for (input, _) in games {
            let rules = &input.rules;
            if !tried.insert(table_rules(rules.variant())) {
                continue;
            }
            let (tables, summary, errors) = Tables::load(paths, pieces, rules);
            if tables.prober(rules).is_none() {
                // Not these rules: only an error if no rule set has tables.
                refused.extend(errors);
                continue;
            }
            if let Some(error) = errors.first() {
                bail!("--tablebases: {error}");
            }
            let covered = games
                .iter()
                .filter(|(g, _)| tables.prober(&g.rules).is_some())
                .count();
            eprintln!(
                "tune: {summary} (the rules of {covered} of {} games)",
                games.len()
            );
            sets.push(tables);
        }
        if sets.is_empty() {
            match refused.first() {
                Some(error) => bail!("--tablebases: {error}"),
                None => bail!("--tablebases: no tables in {paths} for the rules of these games"),
            }
        }
        Ok(TableLabels { sets })
    }

    /// The exact value of `game`'s position for the side to move (1, ½, 0),
    /// where the tables hold it and its history cannot change it.
    fn value(&self, game: &Game) -> Option<f32> {
        let prober: Prober = self.sets.iter().find_map(|t| t.prober(game.rules()))?;
        Some(match prober.value(game.position(), game.keys())? {
            tablebase::Value::Win(_) => 1.0,
            tablebase::Value::Draw => 0.5,
            tablebase::Value::Loss(_) => 0.0,
        })
    }
}

/// The score of a fixed-depth search, None for a mate score.
fn search_score(
    game: &Game,
    depth: u32,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
) -> Option<i32> {
    let request = SearchRequest {
        limits: Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        searchmoves: Vec::new(),
    };
    let mut score = None;
    driver::search(game, &request, options, tt, signals, &mut |event| {
        if let SearchEvent::Info(info) = event {
            score = match info.score {
                Score::Cp(cp) => Some(cp),
                Score::Mate(_) => None,
            };
        }
    });
    score
}

/// The evaluation as the tuner sees it: `Σ weight · coefficient + fixed`.
struct Linear {
    coefficients: [f32; PARAMS],
    /// The terms no weight scales (`chase`), shrunk by `progress` as the
    /// engine does.
    fixed: f32,
}

/// The coefficient of every weight in the evaluation from the side to
/// move's view, and the fixed part, so that `evaluate = Σ weight · x +
/// fixed` (up to rounding).
fn weighted_features(set: &eval::FeatureSet) -> Linear {
    let mut x = [0f32; PARAMS];
    let phase = set.phase as f32 / PHASE_MAX as f32;
    let progress = 1.0 - set.stale as f32 / PROGRESS_SPAN as f32;
    let (mover, waiting) = (set.side_to_move, !set.side_to_move);
    let chase = (set.chase[waiting.index()] - set.chase[mover.index()]) * eval::CHASE_CP;
    for p in Player::BOTH {
        let (column, sign) = if p == set.side_to_move {
            (0, 1.0)
        } else {
            (2, -1.0)
        };
        for k in 0..FEATURES {
            let f = set.colours[p.index()][k] as f32 * sign * progress;
            x[4 * k + column] += f * phase;
            x[4 * k + column + 1] += f * (1.0 - phase);
        }
    }
    Linear {
        coefficients: x,
        fixed: chase as f32 * progress,
    }
}

fn flatten(w: &Weights) -> Vec<f64> {
    w.0.iter().flatten().map(|&v| f64::from(v)).collect()
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

fn eval_of(s: &Sample, w: &[f64]) -> f64 {
    let weighted: f64 = (s.x.coefficients.iter().zip(w))
        .map(|(&x, &w)| f64::from(x) * w)
        .sum();
    weighted + f64::from(s.x.fixed)
}

fn loss(set: &[Sample], y: &[f64], w: &[f64], k: f64) -> f64 {
    let sum: f64 = set
        .iter()
        .zip(y)
        .map(|(s, &y)| (sigmoid(k * eval_of(s, w)) - y).powi(2))
        .sum();
    sum / set.len() as f64
}

/// The K that best maps the starting evaluation to game results
/// (a scan, then a finer one around the best).
fn fit_k(set: &[Sample], w: &[f64]) -> f64 {
    let results: Vec<f64> = set.iter().map(|s| f64::from(s.result)).collect();
    let mut best = (f64::MAX, 0.0);
    let mut step = 0.001;
    let mut centre = 0.01;
    for _ in 0..3 {
        for i in -10..=10 {
            let k = centre + f64::from(i) * step;
            if k > 0.0 {
                let l = loss(set, &results, w, k);
                if l < best.0 {
                    best = (l, k);
                }
            }
        }
        centre = best.1;
        step /= 10.0;
    }
    best.1
}

/// Full-batch Adam on the mean squared error plus a ridge towards `start`.
fn descend(set: &[Sample], y: &[f64], start: &[f64], k: f64, args: &TuneArgs) -> Vec<f64> {
    let (rate, b1, b2, eps) = (2.0, 0.9, 0.999, 1e-8);
    let mut w = start.to_vec();
    let mut m = vec![0.0; PARAMS];
    let mut v = vec![0.0; PARAMS];
    let n = set.len() as f64;
    for t in 1..=args.iterations {
        let mut grad = vec![0.0; PARAMS];
        for (s, &y) in set.iter().zip(y) {
            let p = sigmoid(k * eval_of(s, &w));
            let g = 2.0 * (p - y) * p * (1.0 - p) * k;
            for (gj, &xj) in grad.iter_mut().zip(&s.x.coefficients) {
                *gj += g * f64::from(xj);
            }
        }
        for j in 0..PARAMS {
            let g = grad[j] / n + 2.0 * args.ridge * (w[j] - start[j]);
            m[j] = b1 * m[j] + (1.0 - b1) * g;
            v[j] = b2 * v[j] + (1.0 - b2) * g * g;
            let mh = m[j] / (1.0 - b1.powi(t as i32));
            let vh = v[j] / (1.0 - b2.powi(t as i32));
            w[j] -= rate * mh / (vh.sqrt() + eps);
        }
        if t % 100 == 0 {
            eprintln!("tune: iteration {t}: train {:.6}", loss(set, y, &w, k));
        }
    }
    w
}

/// The fitted weights as the Rust constant for `src/eval/weights.rs`.
fn weights_source(family: Family, w: &[f64]) -> String {
    let mut out = format!(
        "/// Fitted by `yote tune --family {}`.\npub const FITTED_{}: Weights = Weights([\n",
        family.name(),
        family.name().replace('-', "_").to_uppercase()
    );
    for (k, name) in FEATURE_NAMES.iter().enumerate() {
        let row: Vec<String> = w[4 * k..4 * k + 4]
            .iter()
            .map(|v| format!("{}", *v as i32))
            .collect();
        out.push_str(&format!("    [{}], // {name}\n", row.join(", ")));
    }
    out.push_str("]);\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// The fitter's linear model must be the engine's evaluation, or the
    /// fitted weights would mean something else in the search.
    #[test]
    fn the_linear_model_is_the_evaluation() {
        let cases = [
            ("standard", "6/2W3/1BWB2/2B3/6 b 8 8 7 5"),
            ("standard", "W5/1B4/6/3W2/5B w 0 2 40 60"),
            ("hand-removal", "6/2W3/1WW3/2B3/6 w 3 1 0 40"),
            ("classic", "6/B5/6/3W2/6 b 0 0 130 90"),
            // A lead with nothing in hand: `chase` is 36 cp of it.
            ("standard", "5W/4B1/6/W5/WW1B2 b 0 0 10 30"),
        ];
        for (preset, text) in cases {
            let rules = Rules::new(Variant::preset(preset).unwrap()).unwrap();
            let pos = rules.parse_position(text).unwrap();
            let set = eval::features(&rules, &pos);
            let w = flatten(Family::of(&rules).weights());
            let sample = Sample {
                x: weighted_features(&set),
                result: 0.5,
                search: None,
            };
            let model = eval_of(&sample, &w);
            let engine = f64::from(eval::evaluate(&rules, &pos));
            // The engine rounds each term and the progress share down.
            assert!(
                (model - engine).abs() <= 20.0,
                "{preset} {text}: {model} vs {engine}"
            );
        }
    }

    /// Quiet positions of the tables (White to move, game not over) with
    /// the value `wanted`, a long win or a draw.
    fn quiet_table_positions(
        tables: &tablebase::Tablebase,
        rules: &Rules,
        wanted: fn(tablebase::Value) -> bool,
    ) -> Vec<crate::rules::Position> {
        let mut found = Vec::new();
        for table in tables.tables() {
            for index in (0..table.index.size()).step_by(7) {
                let pos = table.position(index);
                if table.value(index).is_some_and(wanted)
                    && rules.status(&pos).is_none()
                    && !rules.has_capture(&pos)
                {
                    found.push(pos);
                }
            }
        }
        found
    }

    /// Arguments that label the positions of `records` (family board,
    /// depth 1, no tables, nothing fitted).
    fn labelling_args(records: PathBuf) -> TuneArgs {
        TuneArgs {
            records: vec![records],
            family: "board".into(),
            lambda: 0.5,
            depth: 1,
            iterations: 0,
            skip: 0,
            per_game: 40,
            ridge: 0.0,
            keep_max_plies: false,
            seed: 1,
            tablebases: None,
            tablebase_pieces: 32,
            dump: None,
        }
    }

    /// A one-move game from `pos` (White to move) that ends `result`.
    fn record(rules: &Rules, spec: &str, pos: &crate::rules::Position, result: &str) -> String {
        let mut list = crate::rules::MoveList::new();
        rules.legal_moves(pos, &mut list);
        let mv = rules.move_text(list.iter().next().unwrap());
        let fen = rules.position_text(pos);
        format!(
            "[Event \"t\"]\n[Variant \"{spec}\"]\n[FEN \"{fen}\"]\n[Result \"{result}\"]\n\n1. {mv} {result}\n\n"
        )
    }

    /// Inside the tables the label is the exact value, whatever the game's
    /// result and λ; where the no-capture limit could cut the win short it
    /// stays the game's result, as in the search.
    #[test]
    fn table_positions_are_labelled_by_their_exact_value() {
        use crate::tablebase::{Metric, Request, Shard, Value, generate::Silent};
        let dir = std::env::temp_dir().join(format!("yote-tune-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = Rules::standard();
        let request = Request {
            pieces: 4,
            dir: Some(dir.join("tb")),
            shard: Shard::ALL,
            threads: 1,
            metric: Metric::Dtm,
        };
        let (tables, _) = tablebase::generate(&rules, &request, &Silent).unwrap();
        let wins = quiet_table_positions(&tables, &rules, |v| matches!(v, Value::Win(d) if d >= 3));
        let draws = quiet_table_positions(&tables, &rules, |v| v == Value::Draw);
        let (won, other_won, drawn) = (wins[0], wins[1], draws[0]);
        let Some(Value::Win(d)) = tables.probe(&other_won) else {
            panic!("a win")
        };
        // Its no-capture counter one ply too high for the win to arrive.
        let limit = 60;
        let mut text = rules.position_text(&other_won);
        let fields: Vec<&str> = text.split(' ').collect();
        text = format!(
            "{} w {} {} {} 40",
            fields[0],
            fields[2],
            fields[3],
            limit + 1 - u32::from(d)
        );
        let cut_short = rules.parse_position(&text).unwrap();
        let tight = format!("standard,no_capture_draw={limit}");
        let tight_rules = Rules::new(Variant::from_spec(&tight).unwrap()).unwrap();
        let records = dir.join("games.pgn");
        std::fs::write(
            &records,
            [
                record(&rules, "standard", &won, "0-1"),
                record(&rules, "standard", &drawn, "1-0"),
                record(&tight_rules, &tight, &cut_short, "0-1"),
            ]
            .concat(),
        )
        .unwrap();
        let mut args = TuneArgs {
            tablebases: Some(dir.join("tb").display().to_string()),
            ..labelling_args(records)
        };
        let (samples, exact) = collect(&args, Some(Family::Board), |_, _| ()).unwrap();
        let labels: Vec<(f32, bool)> = samples
            .iter()
            .map(|s| (s.result, s.search.is_some()))
            .collect();
        // Won (the game says lost), drawn (the game says won), and the
        // untrusted win: the game's loss with a search score.
        assert_eq!(labels, [(1.0, false), (0.5, false), (0.0, true)]);
        assert_eq!(exact, 2);
        // Without tables: the games' results.
        args.tablebases = None;
        let (samples, exact) = collect(&args, Some(Family::Board), |_, _| ()).unwrap();
        let results: Vec<f32> = samples.iter().map(|s| s.result).collect();
        assert_eq!((results, exact), (vec![0.0, 1.0, 0.0], 0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// On labels made by a known evaluation, descent moves towards it.
    #[test]
    fn descent_lowers_the_loss() {
        let rules = Rules::standard();
        let texts = [
            "6/2W3/1BWB2/2B3/6 b 8 8 7 5",
            "W5/1B4/6/3W2/5B w 0 2 40 60",
            "6/2W3/1WW3/2B3/6 w 3 1 0 40",
            "6/B5/6/3W2/6 b 0 0 30 90",
            "BB4/6/6/3W2/W5 w 2 6 3 30",
        ];
        let set: Vec<Sample> = texts
            .iter()
            .map(|t| {
                let pos = rules.parse_position(t).unwrap();
                let e = eval::evaluate(&rules, &pos);
                Sample {
                    x: weighted_features(&eval::features(&rules, &pos)),
                    result: if e > 0 { 1.0 } else { 0.0 },
                    search: None,
                }
            })
            .collect();
        let y: Vec<f64> = set.iter().map(|s| f64::from(s.result)).collect();
        let start = vec![0.0; PARAMS];
        let args = TuneArgs {
            records: Vec::new(),
            lambda: 1.0,
            depth: 0,
            iterations: 50,
            ..labelling_args(PathBuf::new())
        };
        let k = 0.01;
        let fitted = descend(&set, &y, &start, k, &args);
        assert!(loss(&set, &y, &fitted, k) < loss(&set, &y, &start, k));
    }

    /// `--dump` writes one line per quiet position: rules, position,
    /// result, search score, the fitted evaluation and the network's inputs
    /// as the engine reads them; nothing is left under the temporary name.
    #[test]
    fn dump_writes_the_labelled_positions_with_their_network_inputs() {
        let dir = std::env::temp_dir().join(format!("yote-tune-dump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Rules::standard();
        let pos = rules.parse_position("W5/6/6/6/5B w 11 11 0 1").unwrap();
        let records = dir.join("games.pgn");
        std::fs::write(&records, record(&rules, "standard", &pos, "1-0")).unwrap();
        let out = dir.join("standard.nnue");
        let args = TuneArgs {
            family: "all".into(),
            dump: Some(out.clone()),
            ..labelling_args(records)
        };
        run(args).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let fields: Vec<&str> = text.trim_end().split('\t').collect();
        let inputs = crate::eval::nnue::training_inputs(&rules, &pos).unwrap();
        let list = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_eq!(fields[0], Variant::STANDARD.spec());
        assert_eq!(fields[1], rules.position_text(&pos));
        assert_eq!(fields[2], "1");
        assert!(fields[3].parse::<i32>().is_ok(), "{text}");
        assert_eq!(fields[4], eval::evaluate(&rules, &pos).to_string());
        assert_eq!(
            (fields[5], fields[6]),
            (&*list(&inputs[0]), &*list(&inputs[1]))
        );
        assert!(!out.with_extension("part").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
