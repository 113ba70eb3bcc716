//! `yote match …`: the command-line flags and their translation into a
//! checked match configuration.

use super::engine_process::{Dialect, EngineConfig};
use super::game::{Adjudication, ScoreRule, TimeControl, Timing};
use super::openings::{Opening, parse_openings, random_openings};
use super::schedule::Format;
use super::stats::{Sprt, SprtModel};
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
    /// option.<Name>=<value> (a setoption).
    /// Example: `name=rnd,cmd=target/release/yote,option.Style=random`.
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Items added to every engine, before its own (e.g. `option.Hash=16`).
    #[arg(long, value_name = "SPEC")]
    pub each: Option<String>,
    /// The first engine plays each of the others (default: round robin).
    #[arg(long)]
    pub gauntlet: bool,
    /// Games per pairing, rounded up to an even number (colour-swapped pairs).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Rules: a preset and/or key=value overrides, as for `yote perft`.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Clock per side: seconds[+increment], e.g. `10+0.1`.
    #[arg(long, group = "limit")]
    pub tc: Option<String>,
    /// Fixed time per move, in milliseconds.
    #[arg(long, group = "limit")]
    pub movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, group = "limit")]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, group = "limit")]
    pub depth: Option<u32>,
    /// Grace in ms beyond the clock or movetime before a move is a time loss.
    #[arg(long, default_value_t = 100)]
    pub timeout_margin: u64,
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
    /// Plies of the random balanced openings.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: usize,
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
    /// Read a records file and print its statistics instead of playing.
    #[arg(long, value_name = "FILE")]
    pub rescore: Option<PathBuf>,
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
    pub quiet: bool,
}

impl MatchConfig {
    pub fn from_args(args: &MatchArgs) -> Result<MatchConfig> {
        let rules = Rules::new(Variant::from_spec(&args.variant)?)?;
        let engines = engine_configs(&args.engines, args.each.as_deref())?;
        ensure!(engines.len() >= 2, "a match needs at least two --engine");
        ensure!(args.concurrency >= 1, "--concurrency must be at least 1");
        ensure!(
            args.sprt.is_none() || engines.len() == 2,
            "--sprt compares exactly two engines"
        );
        let rounds = args.games.div_ceil(2).max(1);
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
                control: time_control(args)?,
                margin: Duration::from_millis(args.timeout_margin),
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
            quiet: args.quiet,
            engines,
        })
    }
}

/// The file's openings (shuffled by the seed unless asked not to), or one
/// random balanced opening per game pair.
fn load_openings(args: &MatchArgs, rules: &Rules, rounds: usize) -> Result<Vec<Opening>> {
    match &args.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let mut list =
                parse_openings(rules, &text).with_context(|| format!("in {}", path.display()))?;
            if !args.openings_in_order {
                SplitMix64::derived(args.seed, 3).shuffle(&mut list);
            }
            Ok(list)
        }
        None if args.opening_plies == 0 => Ok(vec![Opening::startpos()]),
        None => random_openings(rules, args.opening_plies, rounds, args.seed),
    }
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

/// Reads `name=X,cmd=prog args,proto=uci,dir=D,option.Hash=16`.
pub fn engine_config(spec: &str, index: usize) -> Result<EngineConfig> {
    let mut config = EngineConfig {
        name: String::new(),
        program: String::new(),
        args: Vec::new(),
        dir: None,
        dialect: Dialect::Ugi,
        options: Vec::new(),
    };
    for (key, value) in key_values(spec)? {
        let value = value.as_str();
        match key.as_str() {
            "name" => config.name = value.to_string(),
            "cmd" => {
                let mut words = value.split_whitespace().map(str::to_string);
                config.program = words.next().unwrap_or_default();
                config.args = words.collect();
            }
            "arg" => config.args.push(value.to_string()),
            "dir" => config.dir = Some(PathBuf::from(value)),
            "proto" => {
                config.dialect = match value {
                    "ugi" => Dialect::Ugi,
                    "uci" => Dialect::Uci,
                    _ => bail!("proto must be ugi or uci, not '{value}'"),
                }
            }
            _ => match key.strip_prefix("option.") {
                Some(name) if !name.is_empty() => set_option(&mut config.options, name, value),
                _ => {
                    bail!("unknown engine key '{key}' (name, cmd, arg, dir, proto, option.<Name>)")
                }
            },
        }
    }
    ensure!(!config.program.is_empty(), "cmd= is missing");
    if config.name.is_empty() {
        config.name = format!("engine{}", index + 1);
    }
    Ok(config)
}

/// A later value for the same option replaces the earlier one (so an
/// engine's own items override `--each`).
fn set_option(options: &mut Vec<(String, String)>, name: &str, value: &str) {
    match options
        .iter_mut()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
    {
        Some(slot) => slot.1 = value.to_string(),
        None => options.push((name.to_string(), value.to_string())),
    }
}

/// Splits `k=v,k=v` at commas; `\,` is a comma inside a value (for
/// options whose own syntax uses commas, e.g. `SearchFeatures=-tt\,-lmr`)
/// and `\\` a backslash.
fn key_values(spec: &str) -> Result<Vec<(String, String)>> {
    let mut items = vec![String::new()];
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ (',' | '\\')) => items.last_mut().expect("non-empty").push(escaped),
                _ => bail!("in '{spec}': a backslash must be followed by ',' or '\\'"),
            },
            ',' => items.push(String::new()),
            _ => items.last_mut().expect("non-empty").push(c),
        }
    }
    items
        .iter()
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .with_context(|| format!("'{item}' is not key=value"))
        })
        .collect()
}

fn time_control(args: &MatchArgs) -> Result<TimeControl> {
    if let Some(tc) = &args.tc {
        return parse_clock(tc);
    }
    Ok(match (args.movetime, args.nodes, args.depth) {
        (Some(ms), _, _) => TimeControl::MoveTime(ms),
        (_, Some(n), _) => TimeControl::Nodes(n),
        (_, _, Some(d)) => TimeControl::Depth(d),
        _ => bail!("give a time control: --tc, --movetime, --nodes or --depth"),
    })
}

/// `10+0.1` or `10` (seconds).
pub fn parse_clock(text: &str) -> Result<TimeControl> {
    let seconds = |s: &str| -> Result<u64> {
        let v: f64 = s
            .trim()
            .parse()
            .with_context(|| format!("bad --tc '{text}'"))?;
        ensure!(v.is_finite() && v >= 0.0, "bad --tc '{text}'");
        Ok((v * 1000.0).round() as u64)
    };
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let base_ms = seconds(base)?;
    ensure!(base_ms > 0, "--tc needs a positive initial time");
    Ok(TimeControl::Clock {
        base_ms,
        inc_ms: seconds(inc)?,
    })
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
                base_ms: 10_000,
                inc_ms: 100
            }
        );
        assert_eq!(
            parse_clock("0.5").unwrap(),
            TimeControl::Clock {
                base_ms: 500,
                inc_ms: 0
            }
        );
        assert!(parse_clock("x").is_err());
        assert_eq!(
            score_rule("cp=20,plies=6").unwrap(),
            ScoreRule { cp: 20, plies: 6 }
        );
        assert!(sprt_spec("elo0=5,elo1=0").is_err());
        assert_eq!(sprt_spec("elo0=-1,elo1=3,alpha=0.1").unwrap().elo0, -1.0);
        let args = parse_args([
            "--engine", "cmd=a", "--engine", "cmd=b", "--depth", "2", "--games", "5",
        ])
        .unwrap();
        let config = MatchConfig::from_args(&args).unwrap();
        assert_eq!(config.rounds, 3);
        assert_eq!(config.timing.control, TimeControl::Depth(2));
        assert!(parse_args(["--engine", "cmd=a", "--depth", "2", "--nodes", "3"]).is_err());
        let no_limit = parse_args(["--engine", "cmd=a", "--engine", "cmd=b"]).unwrap();
        assert!(MatchConfig::from_args(&no_limit).is_err());
    }
}
