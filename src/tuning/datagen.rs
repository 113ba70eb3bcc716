//! `yote datagen`: training positions for the network from in-process
//! self-play, at scale and reproducibly.
//!
//! Each game is a pure function of (seed, game number): its preset is the
//! number's turn in the preset list, its opening a seeded number of
//! uniformly random plies, and every move a single-threaded search of a
//! fixed node count with a fresh transposition table. So a shard
//! (`--shard K/N`: the games whose number is K − 1 modulo N) gives the same
//! lines on any machine and for any `--threads`, shards of one run never
//! repeat a game, and their files together hold exactly the lines one
//! machine would have written (in another order).
//!
//! Output lines are those of `yote tune --dump` (rules, position, result
//! for the side to move or the tables' exact value, the search score, the
//! fitted evaluation, the network's inputs from both sides), so the
//! trainer reads either. The score is the one the game's own search gave
//! the position when it chose its move: no second search.
//!
//! Resumable: after each game written in order, `FILE.progress` records
//! the games done and the data's length (written by rename); a rerun cuts
//! the data back to that length and carries on with the next game.

use crate::eval;
use crate::eval::nnue::training_inputs;
use crate::rng::SplitMix64;
use crate::rules::{Game, Outcome, Player, Rules, Variant};
use crate::search::alphabeta::Features;
use crate::search::driver;
use crate::search::tables::Tables;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Score, SearchEvent, SearchOptions, SearchRequest, Signals};
use crate::tablebase::bound::{cpu_seconds, peak_memory_mib};
use crate::tablebase::{Shard, Value};
use crate::tuning::resume;
use crate::tuning::selfplay::random_opening_with;
use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Games longer than this are stopped and scored drawn, as the match
/// runner's default ply limit does.
const MAX_PLIES: usize = 400;

#[derive(Args, Debug, Clone)]
pub struct DatagenArgs {
    /// The data file (lines of `yote tune --dump`); FILE.progress beside it
    /// lets a rerun resume.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Games of the whole run, all shards together (game numbers 0..GAMES).
    #[arg(long)]
    pub games: u64,
    /// Nodes searched for each move (one thread, so the games repeat).
    #[arg(long, default_value_t = 1000)]
    pub nodes: u64,
    /// Preset names (comma-separated; rule overrides are not taken here),
    /// cycled by game number.
    #[arg(
        long,
        default_value = "standard,hand-removal,6x6,classic,5x5,boxed,all-options"
    )]
    pub presets: String,
    /// Random plies that open each game: a number drawn between the two.
    #[arg(long, default_value = "4-10", value_name = "MIN-MAX")]
    pub opening_plies: String,
    /// Quiet positions kept from each game (drawn by the seed), so that
    /// long games do not outweigh short ones.
    #[arg(long, default_value_t = 40)]
    pub per_game: usize,
    /// Seed of the whole run: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// This machine's share of the games, K of N.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Games played at once (each on one thread; the output is the same
    /// for any number).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Plies without a capture after which a game is stopped and scored
    /// drawn (0: never, the default). Cheaper data (100: 26 % less CPU),
    /// but a fifth of the positions of won games then carry a draw as
    /// their result (measured on 280 games), so off unless the trainer
    /// ignores results.
    #[arg(long, default_value_t = 0)]
    pub draw_after: u32,
    /// Endgame table directories (`:`-separated): positions they hold are
    /// labelled with their exact value instead of the game's result.
    #[arg(long, value_name = "DIRS")]
    pub tablebases: Option<String>,
    /// Largest tables used for labels, in pieces.
    #[arg(long, default_value_t = 32)]
    pub tablebase_pieces: u32,
    /// Search features changed from the defaults, as the SearchFeatures
    /// option: the games are played by the engine as it plays by default
    /// (the network where it is on), and data set v1 was made before the
    /// network was on anywhere and before the correction history and the
    /// table-refined evaluation, so `-nnue,-correction,-tt_eval` makes its
    /// bytes again.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub features: String,
}

/// What a run is asked to do, checked.
struct Plan {
    rules: Vec<Rules>,
    tables: Vec<Option<Tables>>,
    nodes: u64,
    openings: (usize, usize),
    per_game: usize,
    draw_after: u32,
    seed: u64,
    shard: Shard,
    games: u64,
    features: Features,
}

impl Plan {
    fn new(args: &DatagenArgs) -> Result<Plan> {
        let shard = match &args.shard {
            Some(text) => Shard::parse(text)
                .map_err(|_| anyhow::anyhow!("--shard wants K/N with 1 <= K <= N, got '{text}'"))?,
            None => Shard::ALL,
        };
        let mut rules = Vec::new();
        // Names only: a rule spec has commas of its own.
        for name in args.presets.split(',').map(str::trim) {
            let Some(preset) = Variant::PRESETS.iter().find(|p| p.name == name) else {
                let names: Vec<&str> = Variant::PRESETS.iter().map(|p| p.name).collect();
                bail!("--presets: {name:?} is not a preset ({})", names.join(", "));
            };
            let r = Rules::new(preset.variant).with_context(|| format!("preset {name:?}"))?;
            let start = Game::new(r.clone());
            if training_inputs(&r, start.position()).is_none() {
                bail!("preset {name:?}: the network has no inputs for its board or hand");
            }
            rules.push(r);
        }
        let openings = parse_range(&args.opening_plies)?;
        if args.nodes == 0 {
            bail!("--nodes must be at least 1");
        }
        let tables = match &args.tablebases {
            None => rules.iter().map(|_| None).collect(),
            Some(paths) => load_tables(paths, args.tablebase_pieces, &rules)?,
        };
        Ok(Plan {
            rules,
            tables,
            nodes: args.nodes,
            openings,
            per_game: args.per_game,
            draw_after: args.draw_after,
            seed: args.seed,
            shard,
            games: args.games,
            features: Features::parse(&args.features)
                .map_err(|e| anyhow::anyhow!("--features: {e}"))?,
        })
    }

    /// This shard's game numbers, in order.
    fn game_numbers(&self) -> impl Iterator<Item = u64> + '_ {
        let (k, n) = (u64::from(self.shard.index), u64::from(self.shard.count));
        (k - 1..self.games).step_by(n as usize)
    }
}

/// `4-10` (or `6`, for exactly six).
fn parse_range(text: &str) -> Result<(usize, usize)> {
    let bad = || anyhow::anyhow!("--opening-plies wants MIN-MAX with MIN <= MAX, got {text:?}");
    let (lo, hi) = text.split_once('-').unwrap_or((text, text));
    let lo: usize = lo.trim().parse().map_err(|_| bad())?;
    let hi: usize = hi.trim().parse().map_err(|_| bad())?;
    if lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// Each preset's tables, where the directories hold tables of its rules;
/// tables for none of them stop the run rather than label without them.
fn load_tables(paths: &str, pieces: u32, rules: &[Rules]) -> Result<Vec<Option<Tables>>> {
    let mut all = Vec::new();
    let mut errors = Vec::new();
    for r in rules {
        let (tables, summary, errs) = Tables::load(paths, pieces, r);
        if tables.prober(r).is_some() {
            if let Some(e) = errs.first() {
                bail!("--tablebases: {e}");
            }
            eprintln!("datagen: {}: {summary}", r.variant().spec());
            all.push(Some(tables));
        } else {
            errors.extend(errs);
            all.push(None);
        }
    }
    if all.iter().all(Option::is_none) {
        match errors.first() {
            Some(e) => bail!("--tablebases: {e}"),
            None => bail!("--tablebases: no tables in {paths} for these presets"),
        }
    }
    Ok(all)
}

/// One game's lines, ready to write.
struct GameLines {
    number: u64,
    text: String,
    positions: u64,
}

/// Plays game `number` and returns its sampled positions as lines.
fn play(plan: &Plan, number: u64) -> GameLines {
    let slot = (number % plan.rules.len() as u64) as usize;
    let rules = &plan.rules[slot];
    let mut rng = SplitMix64::derived(plan.seed, number);
    let mut game = opening(rules, plan.openings, &mut rng);
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let options = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    let request = SearchRequest {
        limits: Limits {
            nodes: Some(plan.nodes),
            ..Limits::default()
        },
        searchmoves: Vec::new(),
    };
    // (game before the move, the search's score for its side to move)
    let mut seen: Vec<(Game, Option<i32>)> = Vec::new();
    let winner = loop {
        if let Some(end) = game.status() {
            break match end.outcome {
                Outcome::Win(p) => Some(p),
                Outcome::Draw => None,
            };
        }
        let stale = plan.draw_after > 0 && game.position().plies_since_capture() >= plan.draw_after;
        if stale || game.repetitions() >= 3 || game.moves().len() >= MAX_PLIES {
            break None;
        }
        let mut score = None;
        let result = driver::search_with(
            &game,
            &request,
            &options,
            plan.features,
            &tt,
            &signals,
            &mut |event| {
                if let SearchEvent::Info(info) = event {
                    score = match info.score {
                        Score::Cp(cp) => Some(cp),
                        Score::Mate(_) => None,
                    };
                }
            },
        );
        let pos = game.position();
        if pos.owed_removals() == 0 && !rules.has_capture(pos) {
            seen.push((game.clone(), score));
        }
        game.play(&result.best.expect("a game that is not over has a move"));
    };
    rng.shuffle(&mut seen);
    seen.truncate(plan.per_game);
    let mut text = String::new();
    let mut positions = 0;
    for (at, score) in &seen {
        if let Some(line) = line(plan, slot, at, *score, winner) {
            text.push_str(&line);
            positions += 1;
        }
    }
    GameLines {
        number,
        text,
        positions,
    }
}

/// A game after a seeded number of uniformly random plies, not over yet.
fn opening(rules: &Rules, (lo, hi): (usize, usize), rng: &mut SplitMix64) -> Game {
    random_opening_with(rules, rng, |rng| lo + rng.below(hi - lo + 1))
}

/// The dump line of `game`'s position: the tables' value where they hold
/// it (no score then), else the game's result with the search's score.
fn line(
    plan: &Plan,
    slot: usize,
    game: &Game,
    score: Option<i32>,
    winner: Option<Player>,
) -> Option<String> {
    let rules = game.rules();
    let pos = game.position();
    let inputs = training_inputs(rules, pos)?;
    let exact = plan.tables[slot]
        .as_ref()
        .and_then(|t| t.prober(rules))
        .and_then(|p| p.value(pos, game.keys()));
    let (result, score) = match exact {
        Some(Value::Win(_)) => (1.0, None),
        Some(Value::Draw) => (0.5, None),
        Some(Value::Loss(_)) => (0.0, None),
        None => match winner {
            Some(p) if p == pos.side_to_move() => (1.0, score),
            Some(_) => (0.0, score),
            None => (0.5, score),
        },
    };
    let list = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
    Some(format!(
        "{}\t{}\t{result}\t{}\t{}\t{}\t{}\n",
        rules.variant().spec(),
        rules.position_text(pos),
        score.map_or("-".to_string(), |s| s.to_string()),
        eval::evaluate(rules, pos),
        list(&inputs[0]),
        list(&inputs[1]),
    ))
}

/// Where a run stands: the games written and the data's length then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Progress {
    games: u64,
    bytes: u64,
    positions: u64,
}

impl Progress {
    const FIELDS: [&str; 3] = ["games", "bytes", "positions"];

    /// None when there is no progress file (a fresh run).
    fn read(out: &Path) -> Result<Option<Progress>> {
        Ok(
            resume::read_progress(out, Self::FIELDS)?.map(|[games, bytes, positions]| Progress {
                games,
                bytes,
                positions,
            }),
        )
    }

    fn write(&self, out: &Path) -> Result<()> {
        let [g, b, p] = Self::FIELDS;
        resume::write_progress(
            out,
            &[(g, self.games), (b, self.bytes), (p, self.positions)],
        )
    }
}

pub fn run(args: DatagenArgs) -> Result<()> {
    let plan = Plan::new(&args)?;
    let numbers: Vec<u64> = plan.game_numbers().collect();
    let mut progress = match Progress::read(&args.out)? {
        Some(p) if p.games > numbers.len() as u64 => bail!(
            "{}: records {} games done, more than this shard's {}; another run's file?",
            resume::progress_path(&args.out).display(),
            p.games,
            numbers.len()
        ),
        Some(p) => p,
        None => Progress::default(),
    };
    let vouched = (progress != Progress::default()).then_some(progress.bytes);
    let mut out = resume::open_output(&args.out, vouched)?;
    let todo = &numbers[progress.games as usize..];
    eprintln!(
        "datagen: {} games of {} for shard {}/{} ({} done), {} nodes a move, {} threads",
        todo.len(),
        plan.games,
        plan.shard.index,
        plan.shard.count,
        progress.games,
        plan.nodes,
        args.threads.max(1)
    );
    let bar = ProgressBar::new(numbers.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} games, ETA {eta} {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_position(progress.games);
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let done_before = progress;
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<GameLines>();
    let written = std::thread::scope(|scope| -> Result<()> {
        for _ in 0..args.threads.max(1) {
            let send = send.clone();
            let (plan, next, failed) = (&plan, &next, &failed);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= todo.len() || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    if send.send(play(plan, todo[i])).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // Games finish out of order; they are written in order, so that
        // the file and its progress always describe a prefix of the shard.
        let mut waiting = BTreeMap::new();
        for lines in receive {
            waiting.insert(lines.number, lines);
            while let Some(lines) = waiting.remove(&numbers[progress.games as usize]) {
                if let Err(e) = append(&mut out, &lines, &mut progress, &args.out) {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                bar.set_position(progress.games);
                bar.set_message(format!("{} positions", progress.positions));
                if progress.games as usize == numbers.len() {
                    break;
                }
            }
        }
        Ok(())
    });
    bar.finish_and_clear();
    written?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_start.zip(cpu_seconds()).map(|(a, b)| b - a);
    let new = progress.positions - done_before.positions;
    let per_million = cpu.filter(|_| new > 0).map_or("?".to_string(), |c| {
        format!("{:.1}", c / 60.0 / (new as f64 / 1e6))
    });
    eprintln!(
        "datagen: {} games, {new} positions in {wall:.1} s ({} CPU s, {per_million} CPU minutes a million), peak memory {} MiB; {} has {} positions of {} games",
        progress.games - done_before.games,
        cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
        peak_memory_mib().map_or("?".to_string(), |m| m.to_string()),
        args.out.display(),
        progress.positions,
        progress.games
    );
    Ok(())
}

fn append(
    out: &mut std::fs::File,
    lines: &GameLines,
    progress: &mut Progress,
    path: &Path,
) -> Result<()> {
    out.write_all(lines.text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    progress.games += 1;
    progress.bytes += lines.text.len() as u64;
    progress.positions += lines.positions;
    progress.write(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::generate::Silent;
    use crate::tablebase::{Metric, Request, generate};

    fn plan_with_tables(dir: &Path) -> Plan {
        let args = DatagenArgs {
            out: dir.join("unused.nnue"),
            games: 1,
            nodes: 100,
            presets: "standard".into(),
            opening_plies: "4-10".into(),
            per_game: 40,
            draw_after: 0,
            seed: 1,
            shard: None,
            threads: 1,
            tablebases: Some(dir.to_str().unwrap().into()),
            tablebase_pieces: 32,
            features: String::new(),
        };
        Plan::new(&args).unwrap()
    }

    #[test]
    fn positions_in_the_tables_take_their_exact_value_without_a_score() {
        let dir = std::env::temp_dir().join(format!("yote-datagen-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = Rules::standard();
        let request = Request {
            pieces: 4,
            dir: Some(dir.clone()),
            shard: Shard::ALL,
            threads: 1,
            metric: Metric::Dtz,
        };
        let (tables, _) = generate(&rules, &request, &Silent).unwrap();
        let plan = plan_with_tables(&dir);
        // Two against two on the board, White to move: whatever the game's
        // result says, the line carries the tables' value and no score.
        let pos = rules.parse_position("W5/6/2W3/6/B4B w 0 0 0 1").unwrap();
        let expected = match tables.probe(&pos).unwrap() {
            Value::Win(_) => "1",
            Value::Draw => "0.5",
            Value::Loss(_) => "0",
        };
        let game = Game::from_position(rules.clone(), pos);
        for winner in [Some(Player::White), Some(Player::Black), None] {
            let text = line(&plan, 0, &game, Some(123), winner).unwrap();
            let f: Vec<&str> = text.trim_end().split('\t').collect();
            assert_eq!((f[2], f[3]), (expected, "-"), "{text}");
        }
        // Outside the tables: the game's result and the search's score.
        let start = Game::new(rules.clone());
        let text = line(&plan, 0, &start, Some(123), Some(Player::Black)).unwrap();
        let f: Vec<&str> = text.trim_end().split('\t').collect();
        assert_eq!((f[2], f[3]), ("0", "123"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
