//! `yote match …`: the command-line flags and their translation into a
//! checked match configuration.

use super::game::{Adjudication, ScoreRule, Timing};
use super::openings::{Opening, parse_openings, random_openings};
use super::schedule::{Format, Shard};
use crate::client::TimeControl;
use crate::client::engine_process::EngineConfig;
use crate::client::engine_spec::{engine_config, key_values, parse_clock};
use crate::results::stats::{Sprt, SprtModel};
use crate::rng::SplitMix64;
use crate::rules::{Rules, Variant};
use anyhow::{Context, Result, bail, ensure};
use clap::{Args, FromArgMatches};
use std::path::PathBuf;
use std::time::Duration;

/// Command-line arguments of `yote match`. Boxed so the binary's subcommand
/// enum stays small (clippy's large_enum_variant).
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    #[command(flatten)]
    pub options: Box<MatchOptions>,
}

/// What each move may take (one of a clock, a fixed time, nodes or depth)
/// and the grace before lateness is a loss: shared by `yote match` and
/// `yote spsa`, which plays its games through the match runner.
#[derive(Args, Debug, Clone)]
pub struct MoveLimits {
    /// Clock per side: seconds[+increment], e.g. `10+0.1`, or moves per
    /// period, `40/60` (60 s for every 40 moves) or `40/60+0.5`.
    #[arg(long, group = "limit")]
    pub tc: Option<String>,
    /// Fixed time per move, in milliseconds.
    #[arg(long, group = "limit")]
    pub movetime: Option<u64>,
    /// Fixed nodes per move (deterministic with one search thread).
    #[arg(long, group = "limit")]
    pub nodes: Option<u64>,
    /// Fixed depth per move (deterministic with one search thread).
    #[arg(long, group = "limit")]
    pub depth: Option<u32>,
    /// Grace in ms beyond the clock or movetime before a move is a time loss.
    #[arg(long, default_value_t = 100)]
    pub timeout_margin: u64,
}

impl std::ops::Deref for MatchArgs {
    type Target = MatchOptions;
    fn deref(&self) -> &MatchOptions {
        &self.options
    }
}

#[derive(Args, Debug, Clone)]
pub struct MatchOptions {
    /// An engine: comma-separated key=value items. Keys: name, cmd (the
    /// program and its arguments, split at spaces), arg (one more argument,
    /// kept whole), dir (working directory), proto (ugi or uci; default ugi),
    /// `option.<Name>=<value>` (a setoption), tc (this engine's own clock, for
    /// time odds). `\,` is a comma inside a value.
    /// Example: `name=rnd,cmd=target/release/yote,option.Style=random`.
    /// `option.Skill Level=N` (0-19) weakens the engine: Skill Level plays
    /// by node budgets and ignores the clock, so two settings of one engine
    /// are `name=L3,cmd=target/release/yote,option.Skill Level=3` against
    /// `name=L8,cmd=target/release/yote,option.Skill Level=8` (docs/match.md).
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Items added to every engine, before its own (e.g. `option.Hash=16`).
    #[arg(long, value_name = "SPEC")]
    pub each: Option<String>,
    /// The first engine plays each of the others (default: round robin).
    #[arg(long)]
    pub gauntlet: bool,
    /// Games per pairing: an even number (colour-swapped pairs).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Rules: a preset and/or key=value overrides, as for `yote perft`.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    #[command(flatten)]
    pub limits: MoveLimits,
    /// With --nodes or --depth: ms without a reply after which an engine is
    /// hung and loses.
    #[arg(long, default_value_t = 60_000)]
    pub move_timeout: u64,
    /// ms allowed for the handshake, `isready` and new-game answers.
    #[arg(long, default_value_t = 10_000)]
    pub handshake_timeout: u64,
    /// Openings file: one per line, a position text, a move list, or
    /// `<position text> moves <list>`. Default: random balanced openings.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Plies of the random balanced openings (default 4); not with --openings.
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// Play the openings file in file order instead of a seeded shuffle.
    #[arg(long)]
    pub openings_in_order: bool,
    /// Seed of the schedule and openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw after this many plies (opening included); 0 = no limit.
    #[arg(long, default_value_t = 500)]
    pub max_plies: usize,
    /// Score adjudication, draw: `cp=10,plies=8`, both engines within ±cp.
    #[arg(long, value_name = "cp=N,plies=K")]
    pub draw: Option<String>,
    /// Score adjudication, resign: `cp=800,plies=6`, both agree one side is
    /// at least cp ahead.
    #[arg(long, value_name = "cp=N,plies=K")]
    pub resign: Option<String>,
    /// Stop when decided: `elo0=0,elo1=5[,alpha=0.05,beta=0.05]`. Two
    /// engines only; the statistics are the first engine's.
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// Append every game to this records file (PGN-like).
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Continue the interrupted run recorded in --pgn (same flags): its
    /// games count once and only the rest are played.
    #[arg(long, requires = "pgn")]
    pub resume: bool,
    /// Play share K of N of the match (1 <= K <= N): every machine given the
    /// same flags and seed plays a disjoint part; --rescore merges them.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Read records files and print their statistics instead of playing.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub rescore: Vec<PathBuf>,
    /// The records' Event tag.
    #[arg(long, default_value = "yote match")]
    pub event: String,
    /// Print every engine's stderr to `DIR/<name>.stderr`.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// With --log-dir: also every line exchanged, `DIR/<name>-<pid>.protocol`.
    #[arg(long, requires = "log_dir")]
    pub log_protocol: bool,
    /// One line on stderr per finished game.
    #[arg(long)]
    pub show_games: bool,
    /// Print the statistics (and standings) on stderr every N games.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub rating_interval: usize,
    /// Standings with this engine's rating fixed at 0, and every interval
    /// the one of the difference to it (default: ratings average 0).
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
    /// No progress line on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// Parses `match` arguments (without the program name and subcommand);
/// for tests and scripts that build a match from strings.
pub fn parse_args<I, T>(args: I) -> Result<MatchArgs, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let command = MatchArgs::augment_args(clap::Command::new("match"));
    let argv =
        std::iter::once(std::ffi::OsString::from("match")).chain(args.into_iter().map(Into::into));
    MatchArgs::from_arg_matches(&command.try_get_matches_from(argv)?)
}

/// A match ready to run: every flag checked and converted.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub rules: Rules,
    pub engines: Vec<EngineConfig>,
    pub format: Format,
    /// Game pairs per pairing.
    pub rounds: usize,
    pub concurrency: usize,
    pub timing: Timing,
    pub handshake_timeout: Duration,
    pub adjudication: Adjudication,
    pub sprt: Option<Sprt>,
    pub seed: u64,
    /// Opening r is used by game pair r of every pairing (cycling).
    pub openings: Vec<Opening>,
    pub pgn: Option<PathBuf>,
    pub resume: bool,
    pub shard: Option<Shard>,
    pub event: String,
    /// The records' Site tag: this machine's name.
    pub site: String,
    pub show_games: bool,
    pub rating_interval: usize,
    pub anchor: Option<String>,
    pub quiet: bool,
}

impl MatchConfig {
    pub fn from_args(args: &MatchArgs) -> Result<MatchConfig> {
        let rules = Rules::new(Variant::from_spec(&args.variant)?)?;
        let mut engines = engine_configs(&args.engines, args.each.as_deref())?;
        for engine in &mut engines {
            engine.log_dir = args.log_dir.clone();
            engine.log_protocol = args.log_protocol;
        }
        ensure!(engines.len() >= 2, "a match needs at least two --engine");
        ensure!(args.concurrency >= 1, "--concurrency must be at least 1");
        ensure!(
            args.sprt.is_none() || engines.len() == 2,
            "--sprt compares exactly two engines"
        );
        ensure!(args.games > 0, "--games must be at least 2");
        ensure!(
            args.games.is_multiple_of(2),
            "--games {} is odd: games come in colour-swapped pairs, so give {} or {}",
            args.games,
            args.games - 1,
            args.games + 1
        );
        if let Some(anchor) = &args.anchor {
            ensure!(
                engines.iter().any(|e| &e.name == anchor),
                "--anchor {anchor}: no engine has that name"
            );
        }
        let rounds = args.games / 2;
        let control = time_control(args, &engines)?;
        Ok(MatchConfig {
            openings: load_openings(args, &rules, rounds)?,
            rules,
            format: if args.gauntlet {
                Format::Gauntlet
            } else {
                Format::RoundRobin
            },
            rounds,
            concurrency: args.concurrency,
            timing: Timing {
                control,
                margin: Duration::from_millis(args.limits.timeout_margin),
                move_timeout: Duration::from_millis(args.move_timeout),
            },
            handshake_timeout: Duration::from_millis(args.handshake_timeout),
            adjudication: Adjudication {
                max_plies: args.max_plies,
                draw: args.draw.as_deref().map(score_rule).transpose()?,
                resign: args.resign.as_deref().map(score_rule).transpose()?,
            },
            sprt: args.sprt.as_deref().map(sprt_spec).transpose()?,
            seed: args.seed,
            pgn: args.pgn.clone(),
            resume: args.resume,
            shard: args.shard.as_deref().map(shard_spec).transpose()?,
            event: args.event.clone(),
            site: hostname(),
            show_games: args.show_games,
            rating_interval: args.rating_interval,
            anchor: args.anchor.clone(),
            quiet: args.quiet,
            engines,
        })
    }

    /// The time control of engine `index`: its own, else the match's.
    pub fn control(&self, index: usize) -> TimeControl {
        self.engines[index].control.unwrap_or(self.timing.control)
    }

    /// Everything that decides the games, for the run's fingerprint (not
    /// concurrency, files, shard or output, which a resumed or sharded run
    /// may change).
    pub fn describe(&self) -> String {
        let engines: Vec<String> = self
            .engines
            .iter()
            .map(|e| {
                format!(
                    "{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}",
                    e.name, e.program, e.args, e.dir, e.dialect, e.options, e.control
                )
            })
            .collect();
        let openings: Vec<String> = self.openings.iter().map(Opening::describe).collect();
        format!(
            "{}\n{}\n{:?} rounds={} seed={}\n{:?}\n{:?}\n{}",
            engines.join("\n"),
            self.rules.variant().spec(),
            self.format,
            self.rounds,
            self.seed,
            self.timing,
            self.adjudication,
            openings.join("\n")
        )
    }
}

/// `K/N` with 1 <= K <= N.
fn shard_spec(text: &str) -> Result<Shard> {
    let parsed = text.split_once('/').and_then(|(k, n)| {
        Some((
            k.trim().parse::<usize>().ok()?,
            n.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((k, n)) if k >= 1 && k <= n => Ok(Shard {
            index: k - 1,
            count: n,
        }),
        _ => bail!("--shard wants K/N with 1 <= K <= N, e.g. 1/4, not '{text}'"),
    }
}

/// This machine's name for the Site tag (`?`, PGN's unknown, if none).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "?".to_string())
}

/// The file's openings (shuffled by the seed unless asked not to), or one
/// random balanced opening per game pair. Fewer openings than game pairs
/// means repeated pairs, which the statistics take as independent: said on
/// stderr.
fn load_openings(args: &MatchArgs, rules: &Rules, rounds: usize) -> Result<Vec<Opening>> {
    ensure!(
        args.openings.is_some() || !args.openings_in_order,
        "--openings-in-order needs --openings FILE"
    );
    ensure!(
        args.openings.is_none() || args.opening_plies.is_none(),
        "--opening-plies makes random openings; it cannot go with --openings FILE"
    );
    let list = match &args.openings {
        Some(path) => {
            let text = crate::textfile::read(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let mut list =
                parse_openings(rules, &text).with_context(|| format!("in {}", path.display()))?;
            if !args.openings_in_order {
                SplitMix64::derived(args.seed, 3).shuffle(&mut list);
            }
            list
        }
        None => match args.opening_plies.unwrap_or(4) {
            0 => vec![Opening::startpos()],
            plies => random_openings(rules, plies, rounds, args.seed)?,
        },
    };
    if list.len() < rounds && !args.quiet {
        eprintln!(
            "warning: {} distinct opening(s) for {rounds} game pairs per pairing: each is \
             played up to {} times, and repeated pairs are not independent samples, so \
             the intervals and the SPRT are too optimistic",
            list.len(),
            rounds.div_ceil(list.len())
        );
    }
    Ok(list)
}

fn engine_configs(specs: &[String], each: Option<&str>) -> Result<Vec<EngineConfig>> {
    let mut engines: Vec<EngineConfig> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let full = match each {
            Some(common) => format!("{common},{spec}"),
            None => spec.clone(),
        };
        let engine = engine_config(&full, i).with_context(|| format!("--engine {spec}"))?;
        ensure!(
            engines.iter().all(|e| e.name != engine.name),
            "two engines are named '{}'; give each a distinct name=",
            engine.name
        );
        engines.push(engine);
    }
    Ok(engines)
}

/// The match's time control. Engines with a `tc=` of their own play on a
/// clock, so then the match's control must be a clock too (or absent, if
/// every engine has its own). Engines with their own `nodes=`, `depth=` or
/// `movetime=` (a strength ladder) play against any control.
fn time_control(args: &MatchArgs, engines: &[EngineConfig]) -> Result<TimeControl> {
    let own_clocks = engines
        .iter()
        .filter(|e| e.control.is_some_and(|c| c.is_clock()))
        .count();
    let own = engines.iter().filter(|e| e.control.is_some()).count();
    let l = &args.limits;
    let given = match (&l.tc, l.movetime, l.nodes, l.depth) {
        (Some(tc), ..) => Some(parse_clock(tc)?),
        (_, Some(ms), ..) => Some(TimeControl::MoveTime(ms)),
        (_, _, Some(n), _) => Some(TimeControl::Nodes(n)),
        (_, _, _, Some(d)) => Some(TimeControl::Depth(d)),
        _ => None,
    };
    match given {
        Some(control) if own_clocks > 0 && !control.is_clock() => {
            bail!("an engine's tc= needs the match on a clock too (--tc), not {control}")
        }
        Some(control) => Ok(control),
        None if own == engines.len() => Ok(engines[0].control.expect("every engine has its own")),
        None => bail!("give a time control: --tc, --movetime, --nodes or --depth"),
    }
}

fn score_rule(spec: &str) -> Result<ScoreRule> {
    let mut rule = ScoreRule { cp: 0, plies: 0 };
    for (key, value) in key_values(spec)? {
        match key.as_str() {
            "cp" => rule.cp = value.parse().context("cp")?,
            "plies" => rule.plies = value.parse().context("plies")?,
            _ => bail!("unknown adjudication key '{key}' (cp, plies)"),
        }
    }
    ensure!(
        rule.cp >= 0 && rule.plies >= 2,
        "adjudication needs cp>=0 and plies>=2 in '{spec}'"
    );
    Ok(rule)
}

pub fn sprt_spec(spec: &str) -> Result<Sprt> {
    let mut test = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: SprtModel::Logistic,
    };
    for (key, value) in key_values(spec)? {
        if key == "model" {
            test.model = match value.as_str() {
                "logistic" => SprtModel::Logistic,
                "normalized" => SprtModel::Normalized,
                _ => bail!("sprt model must be logistic or normalized, not '{value}'"),
            };
            continue;
        }
        let v: f64 = value.parse().with_context(|| format!("sprt {key}"))?;
        match key.as_str() {
            "elo0" => test.elo0 = v,
            "elo1" => test.elo1 = v,
            "alpha" => test.alpha = v,
            "beta" => test.beta = v,
            _ => bail!("unknown sprt key '{key}' (elo0, elo1, alpha, beta, model)"),
        }
    }
    let unit = 0.0..1.0;
    ensure!(
        test.elo0 < test.elo1
            && unit.contains(&test.alpha)
            && test.alpha > 0.0
            && unit.contains(&test.beta)
            && test.beta > 0.0
            && test.alpha + test.beta < 1.0,
        "--sprt needs elo0 < elo1 and alpha, beta in (0, 1) with alpha + beta < 1"
    );
    Ok(test)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::engine_process::Dialect;

    #[test]
    fn engine_specs() {
        let e = engine_config(
            "name=a,cmd=./eng --x 1,proto=uci,option.Hash=16,option.Style=random",
            0,
        )
        .unwrap();
        assert_eq!((e.name.as_str(), e.program.as_str()), ("a", "./eng"));
        assert_eq!(e.args, ["--x", "1"]);
        assert_eq!(e.dialect, Dialect::Uci);
        assert_eq!(e.options[1], ("Style".to_string(), "random".to_string()));
        let all = engine_configs(
            &["cmd=x,option.Hash=32".into(), "cmd=y".into()],
            Some("option.Hash=16"),
        )
        .unwrap();
        assert_eq!(all[0].options, [("Hash".to_string(), "32".to_string())]);
        assert_eq!(all[1].name, "engine2");
        assert!(engine_config("name=a", 0).is_err());
        assert!(engine_config("cmd=a,colour=red", 0).is_err());
        // The engine's own comma-separated option syntax, escaped.
        let e =
            engine_config(r"cmd=x,option.SearchFeatures=-tt\,-lmr,option.Path=a\\b", 0).unwrap();
        assert_eq!(
            e.options,
            [
                ("SearchFeatures".to_string(), "-tt,-lmr".to_string()),
                ("Path".to_string(), r"a\b".to_string())
            ]
        );
        assert!(engine_config(r"cmd=x,option.A=\q", 0).is_err());
    }

    #[test]
    fn limits_and_rules() {
        assert_eq!(
            parse_clock("10+0.1").unwrap(),
            TimeControl::Clock {
                moves: None,
                base_ms: 10_000,
                inc_ms: 100
            }
        );
        assert_eq!(
            parse_clock("0.5").unwrap(),
            TimeControl::Clock {
                moves: None,
                base_ms: 500,
                inc_ms: 0
            }
        );
        assert_eq!(
            parse_clock("40/60").unwrap(),
            TimeControl::Clock {
                moves: Some(40),
                base_ms: 60_000,
                inc_ms: 0
            }
        );
        assert_eq!(parse_clock("40/60+0.5").unwrap().to_string(), "40/60+0.5");
        for bad in ["x", "0/60", "/60", "40/", "40/0"] {
            assert!(parse_clock(bad).is_err(), "{bad}");
        }
        assert_eq!(shard_spec("2/5").unwrap(), Shard { index: 1, count: 5 });
        for bad in ["0/5", "6/5", "1", "a/b"] {
            assert!(shard_spec(bad).is_err(), "{bad}");
        }
        assert_eq!(
            score_rule("cp=20,plies=6").unwrap(),
            ScoreRule { cp: 20, plies: 6 }
        );
        assert!(sprt_spec("elo0=5,elo1=0").is_err());
        assert_eq!(sprt_spec("elo0=-1,elo1=3,alpha=0.1").unwrap().elo0, -1.0);
        let config_of = |extra: &[&str]| {
            let mut all = vec!["--quiet", "--engine", "cmd=a", "--engine", "cmd=b"];
            all.extend_from_slice(extra);
            MatchConfig::from_args(&parse_args(all).unwrap())
        };
        let config = config_of(&["--depth", "2", "--games", "6"]).unwrap();
        assert_eq!(config.rounds, 3);
        assert_eq!(config.timing.control, TimeControl::Depth(2));
        // The issue's silent surprises are refused, each with its reason.
        let refused = |extra: &[&str], why: &str| {
            let err = format!("{:#}", config_of(extra).unwrap_err());
            assert!(err.contains(why), "{extra:?}: {err}");
        };
        refused(&["--depth", "2", "--games", "0"], "at least 2");
        refused(&["--depth", "2", "--games", "41"], "give 40 or 42");
        refused(&["--depth", "2", "--openings-in-order"], "needs --openings");
        refused(
            &[
                "--depth",
                "2",
                "--openings",
                "x.txt",
                "--opening-plies",
                "6",
            ],
            "cannot go with --openings",
        );
        refused(&["--depth", "2", "--shard", "3/2"], "K/N");
        let odds = MatchConfig::from_args(
            &parse_args([
                "--engine",
                "cmd=a,tc=20+0.2",
                "--engine",
                "cmd=b",
                "--tc",
                "10+0.1",
            ])
            .unwrap(),
        )
        .unwrap();
        assert_eq!(odds.control(0).to_string(), "20+0.2");
        assert_eq!(odds.control(1).to_string(), "10+0.1");
        let no_clock = parse_args([
            "--engine",
            "cmd=a,tc=1",
            "--engine",
            "cmd=b",
            "--depth",
            "1",
        ]);
        assert!(MatchConfig::from_args(&no_clock.unwrap()).is_err());
        // A strength ladder: each engine its own search limit.
        let ladder = MatchConfig::from_args(
            &parse_args(["--engine", "cmd=a,nodes=500", "--engine", "cmd=b,depth=3"]).unwrap(),
        )
        .unwrap();
        assert_eq!(ladder.control(0), TimeControl::Nodes(500));
        assert_eq!(ladder.control(1), TimeControl::Depth(3));
        let zero = parse_args([
            "--engine",
            "cmd=a,nodes=0",
            "--engine",
            "cmd=b",
            "--depth",
            "1",
        ]);
        let err = format!("{:#}", MatchConfig::from_args(&zero.unwrap()).unwrap_err());
        assert!(err.contains("nodes= needs a positive integer"), "{err}");
        assert!(parse_args(["--engine", "cmd=a", "--depth", "2", "--nodes", "3"]).is_err());
        let no_limit = parse_args(["--engine", "cmd=a", "--engine", "cmd=b"]).unwrap();
        assert!(MatchConfig::from_args(&no_limit).is_err());
    }
}
