//! `yote relabel`: a data file's search scores given again by a deeper
//! search, so that labels can get better without playing the games again.
//!
//! `yote datagen` keeps the score its game's own search gave a position (a
//! short fixed node count, since every ply of every game is searched). A
//! kept position is one in forty plies, so searching only those again, at
//! several times the nodes, costs a fraction of the games that found them.
//!
//! Every line keeps its rules, position, result, fitted evaluation and
//! inputs; only the score changes, to that of a single-threaded search of
//! `--nodes` with a fresh hash table, so the output is the same on any
//! machine and for any `--threads`. Lines whose score is `-` (the tables'
//! exact value, or a mate the game's search saw) and lines of rule sets
//! outside `--presets` are copied as they are; a new search that sees a
//! mate gives `-` as datagen does (the label is then the result).
//!
//! Resumable: `OUT.progress` records the input lines done and the output's
//! length after each block written; a rerun cuts the output back to that
//! length and goes on from the next line.

use crate::rules::{Game, Rules, Variant};
use crate::search::alphabeta::Features;
use crate::search::driver;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Score, SearchEvent, SearchOptions, SearchRequest, Signals};
use crate::tablebase::bound::{cpu_seconds, peak_memory_mib};
use crate::tuning::resume;
use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Lines searched between two progress records.
const BLOCK: usize = 512;

#[derive(Args, Debug, Clone)]
pub struct RelabelArgs {
    /// The data file to label again (`yote datagen` or `yote tune --dump`
    /// lines).
    #[arg(long = "in", value_name = "FILE")]
    pub input: PathBuf,
    /// The relabelled file; OUT.progress beside it lets a rerun resume.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Nodes searched for each position (one thread, fresh hash table).
    #[arg(long, default_value_t = 8000)]
    pub nodes: u64,
    /// Only lines of these presets (comma-separated names) are searched
    /// again; the others are copied as they are. All rule sets when left
    /// out.
    #[arg(long)]
    pub presets: Option<String>,
    /// Positions searched at once (the output is the same for any number).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Search features changed from the defaults, as the SearchFeatures
    /// option (the default engine labels, the network where it is on).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub features: String,
}

/// A data line's fields, as datagen writes them.
const SPEC: usize = 0;
const POSITION: usize = 1;
const SCORE: usize = 3;
const FIELDS: usize = 7;

struct Labeller {
    nodes: u64,
    presets: Option<Vec<Variant>>,
    features: Features,
    /// Positions searched so far (the others were copied).
    searched: AtomicU64,
}

impl Labeller {
    fn new(args: &RelabelArgs) -> Result<Labeller> {
        if args.nodes == 0 {
            bail!("--nodes must be at least 1");
        }
        let presets = match &args.presets {
            None => None,
            Some(names) => Some(
                names
                    .split(',')
                    .map(str::trim)
                    .map(|name| {
                        Variant::PRESETS
                            .iter()
                            .find(|p| p.name == name)
                            .map(|p| p.variant)
                            .with_context(|| {
                                let all: Vec<&str> =
                                    Variant::PRESETS.iter().map(|p| p.name).collect();
                                format!("--presets: {name:?} is not a preset ({})", all.join(", "))
                            })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(Labeller {
            nodes: args.nodes,
            presets,
            features: Features::parse(&args.features)
                .map_err(|e| anyhow::anyhow!("--features: {e}"))?,
            searched: AtomicU64::new(0),
        })
    }

    /// The line with its score searched again (or as it was), or why it
    /// is not a data line.
    fn relabel(&self, line: &str, tt: &mut TranspositionTable) -> Result<String, String> {
        let mut fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != FIELDS {
            return Err(format!(
                "{} tab-separated fields, not {FIELDS}",
                fields.len()
            ));
        }
        let variant = Variant::from_spec(fields[SPEC]).map_err(|e| format!("rules: {e}"))?;
        let wanted = self.presets.as_ref().is_none_or(|p| p.contains(&variant));
        if fields[SCORE] == "-" || !wanted {
            return Ok(line.to_string());
        }
        let rules = Rules::new(variant).map_err(|e| format!("rules: {e}"))?;
        let pos = rules
            .parse_position(fields[POSITION])
            .map_err(|e| format!("position: {e}"))?;
        let score = self.search(&Game::from_position(rules, pos), tt);
        let text = score.map_or("-".to_string(), |s| s.to_string());
        fields[SCORE] = &text;
        Ok(fields.join("\t"))
    }

    /// The score of a fixed-node search from the side to move, None for a
    /// mate (or no move at all).
    fn search(&self, game: &Game, tt: &mut TranspositionTable) -> Option<i32> {
        self.searched.fetch_add(1, Ordering::Relaxed);
        tt.clear();
        let options = SearchOptions {
            threads: 1,
            ..SearchOptions::default()
        };
        let request = SearchRequest {
            limits: Limits {
                nodes: Some(self.nodes),
                ..Limits::default()
            },
            searchmoves: Vec::new(),
        };
        let mut score = None;
        driver::search_with(
            game,
            &request,
            &options,
            self.features,
            tt,
            &Signals::default(),
            &mut |event| {
                if let SearchEvent::Info(info) = event {
                    score = match info.score {
                        Score::Cp(cp) => Some(cp),
                        Score::Mate(_) => None,
                    };
                }
            },
        );
        score
    }
}

/// Where a run stands: input lines done, the output's length then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Progress {
    lines: u64,
    bytes: u64,
}

impl Progress {
    const FIELDS: [&str; 2] = ["lines", "bytes"];

    fn read(out: &Path) -> Result<Option<Progress>> {
        Ok(resume::read_progress(out, Self::FIELDS)?
            .map(|[lines, bytes]| Progress { lines, bytes }))
    }

    fn write(&self, out: &Path) -> Result<()> {
        let [l, b] = Self::FIELDS;
        resume::write_progress(out, &[(l, self.lines), (b, self.bytes)])
    }
}

pub fn run(args: RelabelArgs) -> Result<()> {
    let labeller = Labeller::new(&args)?;
    if args.input == args.out {
        bail!("--in and --out are the same file");
    }
    let input = std::fs::File::open(&args.input)
        .with_context(|| format!("opening {}", args.input.display()))?;
    let total = input.metadata()?.len();
    let mut progress = Progress::read(&args.out)?.unwrap_or_default();
    let vouched = (progress != Progress::default()).then_some(progress.bytes);
    let mut out = resume::open_output(&args.out, vouched)?;
    let mut lines = BufReader::new(input).lines();
    let mut read = 0u64;
    for _ in 0..progress.lines {
        let line = lines.next().transpose()?.with_context(|| {
            format!(
                "{} is shorter than its relabelled part",
                args.input.display()
            )
        })?;
        read += line.len() as u64 + 1;
    }
    eprintln!(
        "relabel: {} from line {}, {} nodes a position, {} threads",
        args.input.display(),
        progress.lines + 1,
        labeller.nodes,
        args.threads.max(1)
    );
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} of the input, ETA {eta} {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_position(read);
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let done_before = progress;
    let mut tables: Vec<TranspositionTable> = (0..args.threads.max(1))
        .map(|_| TranspositionTable::new(4))
        .collect();
    loop {
        let block: Vec<String> = lines.by_ref().take(BLOCK).collect::<std::io::Result<_>>()?;
        if block.is_empty() {
            break;
        }
        let labelled = relabel_block(&labeller, &block, &mut tables);
        let mut text = String::new();
        for (i, line) in labelled.into_iter().enumerate() {
            let line = line.map_err(|why| {
                anyhow::anyhow!(
                    "{} line {}: {why}",
                    args.input.display(),
                    progress.lines + i as u64 + 1
                )
            })?;
            text.push_str(&line);
            text.push('\n');
        }
        out.write_all(text.as_bytes())
            .with_context(|| format!("writing {}", args.out.display()))?;
        progress.lines += block.len() as u64;
        progress.bytes += text.len() as u64;
        progress.write(&args.out)?;
        read += block.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
        bar.set_position(read);
        bar.set_message(format!("{} lines", progress.lines));
    }
    bar.finish_and_clear();
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_start.zip(cpu_seconds()).map(|(a, b)| b - a);
    let new = progress.lines - done_before.lines;
    let searched = labeller.searched.load(Ordering::Relaxed);
    let per_million = cpu.filter(|_| searched > 0).map_or("?".to_string(), |c| {
        format!("{:.1}", c / 60.0 / (searched as f64 / 1e6))
    });
    eprintln!(
        "relabel: {new} lines ({searched} searched, the others copied) in {wall:.1} s ({} CPU s, {per_million} CPU minutes a million searched), peak memory {} MiB; {} has {} lines",
        cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
        peak_memory_mib().map_or("?".to_string(), |m| m.to_string()),
        args.out.display(),
        progress.lines
    );
    Ok(())
}

/// The block's lines relabelled in order, shared among the threads.
fn relabel_block(
    labeller: &Labeller,
    block: &[String],
    tables: &mut [TranspositionTable],
) -> Vec<Result<String, String>> {
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Result<String, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = tables
            .iter_mut()
            .map(|tt| {
                let next = &next;
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(line) = block.get(i) else { break };
                        mine.push((i, labeller.relabel(line, tt)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a relabelling thread panicked"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, line)| line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "rows=5,cols=6,pieces=12,removal=board,win=one-left,no_moves=loses,mandatory_capture=false,multi_jump=false,bonus_turn=false,jump_own=false,three_draw=false,no_capture_draw=0,no_capture_outcome=draw,repetition_draw=0\tW1WW1W/2W2B/5B/2B3/W1BB1W b 5 7 33 17\t0.5\t0\t2\t112,116\t112,118";

    fn labeller(nodes: u64, presets: Option<&str>) -> Labeller {
        Labeller::new(&RelabelArgs {
            nodes,
            presets: presets.map(str::to_string),
            ..args()
        })
        .unwrap()
    }

    #[test]
    fn only_the_score_changes_and_the_same_search_gives_the_same_score() {
        let mut tt = TranspositionTable::new(1);
        let deep = labeller(20_000, None);
        let a = deep.relabel(LINE, &mut tt).unwrap();
        let b = deep.relabel(LINE, &mut tt).unwrap();
        assert_eq!(a, b, "a fresh table each time: the same score");
        let fields: Vec<&str> = a.split('\t').collect();
        let old: Vec<&str> = LINE.split('\t').collect();
        for i in (0..FIELDS).filter(|&i| i != SCORE) {
            assert_eq!(fields[i], old[i], "field {i}");
        }
        assert!(fields[SCORE].parse::<i32>().is_ok(), "{a}");
        // 20 000 nodes see more than 50: the scores differ here.
        let shallow = labeller(50, None).relabel(LINE, &mut tt).unwrap();
        assert_ne!(shallow, a);
    }

    #[test]
    fn other_rule_sets_and_unscored_lines_are_copied_and_bad_lines_named() {
        let mut tt = TranspositionTable::new(1);
        let only_5x5 = labeller(1000, Some("5x5"));
        assert_eq!(only_5x5.relabel(LINE, &mut tt).unwrap(), LINE);
        let unscored = LINE.replace("\t0.5\t0\t", "\t0.5\t-\t");
        assert_eq!(
            labeller(1000, None).relabel(&unscored, &mut tt).unwrap(),
            unscored
        );
        let short = labeller(1000, None).relabel("a\tb", &mut tt).unwrap_err();
        assert!(short.contains("2 tab-separated fields"), "{short}");
        let bad = LINE.replace("W1WW1W/", "W1WW1WWW/");
        let why = labeller(1000, None).relabel(&bad, &mut tt).unwrap_err();
        assert!(why.starts_with("position:"), "{why}");
        assert!(
            Labeller::new(&RelabelArgs {
                presets: Some("nope".into()),
                ..args()
            })
            .is_err()
        );
    }

    fn args() -> RelabelArgs {
        RelabelArgs {
            input: "in".into(),
            out: "out".into(),
            nodes: 1000,
            presets: None,
            threads: 1,
            features: String::new(),
        }
    }
}
