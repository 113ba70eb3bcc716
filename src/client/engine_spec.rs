//! Engine specs as people write them on a command line:
//! `name=X,cmd=prog args,proto=uci,dir=D,option.Hash=16,tc=10+0.1`.
//! The match runner, the front end, analysis and the tuning tools all read
//! them here, so they agree on every key.

use super::clock::TimeControl;
use super::engine_process::{Dialect, EngineConfig};
use anyhow::{Context, Result, bail, ensure};
use std::path::PathBuf;

/// Reads `name=X,cmd=prog args,proto=uci,dir=D,option.Hash=16`.
pub fn engine_config(spec: &str, index: usize) -> Result<EngineConfig> {
    let mut config = EngineConfig {
        name: String::new(),
        program: String::new(),
        args: Vec::new(),
        dir: None,
        dialect: Dialect::Ugi,
        options: Vec::new(),
        control: None,
        log_dir: None,
        log_protocol: false,
    };
    for (key, value) in key_values(spec)? {
        let value = value.as_str();
        if matches!(key.as_str(), "name") || key.starts_with("option.") {
            no_control_characters(&key, value)?;
        }
        match key.as_str() {
            "name" => config.name = value.to_string(),
            "cmd" => {
                let mut words = value.split_whitespace().map(str::to_string);
                config.program = words.next().unwrap_or_default();
                config.args = words.collect();
            }
            "arg" => config.args.push(value.to_string()),
            "tc" => config.control = Some(parse_clock(value)?),
            "nodes" => config.control = Some(TimeControl::Nodes(positive(&key, value)?)),
            "depth" => config.control = Some(TimeControl::Depth(positive(&key, value)?)),
            "movetime" => config.control = Some(TimeControl::MoveTime(positive(&key, value)?)),
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
                    bail!(
                        "unknown engine key '{key}' (name, cmd, arg, dir, proto, tc, nodes, depth, movetime, option.<Name>)"
                    )
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

/// Option names and values go into one protocol line each, and names into
/// the records: a newline would start a second command (a `setoption` the
/// runner never checked) or a second tag.
fn no_control_characters(key: &str, value: &str) -> Result<()> {
    let bad = key.chars().chain(value.chars()).find(|c| c.is_control());
    if let Some(c) = bad {
        bail!(
            "'{key}={}' holds a control character ({c:?}): names and values must be one line of printable text",
            value.escape_debug()
        );
    }
    Ok(())
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
pub fn key_values(spec: &str) -> Result<Vec<(String, String)>> {
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

/// A per-engine limit (`nodes=`, `depth=`, `movetime=`): a positive integer.
fn positive<T: std::str::FromStr + Default + PartialOrd>(key: &str, value: &str) -> Result<T> {
    value
        .parse::<T>()
        .ok()
        .filter(|n| *n > T::default())
        .with_context(|| format!("{key}= needs a positive integer, not '{value}'"))
}

/// The forms `parse_clock` takes, for its error messages.
const CLOCK_FORMS: &str = "seconds for the game `10`, with an increment per move `10+0.1`, \
     or moves per period `40/60` (with an increment `40/60+0.5`)";

/// `10+0.1`, `10` (seconds), `40/60` or `40/60+0.5` (moves per period).
pub fn parse_clock(text: &str) -> Result<TimeControl> {
    let seconds = |s: &str| -> Result<u64> {
        let bad = || anyhow::anyhow!("bad time control '{text}': use {CLOCK_FORMS}");
        let v: f64 = s.trim().parse().map_err(|_| bad())?;
        ensure!(v.is_finite() && v >= 0.0, bad());
        Ok((v * 1000.0).round() as u64)
    };
    let (moves, clock) = match text.split_once('/') {
        Some((n, rest)) => {
            let n: u32 = n
                .trim()
                .parse()
                .with_context(|| format!("bad moves per period in '{text}'"))?;
            ensure!(n > 0, "moves per period must be positive in '{text}'");
            (Some(n), rest)
        }
        None => (None, text),
    };
    let (base, inc) = clock.split_once('+').unwrap_or((clock, "0"));
    let base_ms = seconds(base)?;
    ensure!(
        base_ms > 0,
        "time control '{text}' needs a positive initial time"
    );
    Ok(TimeControl::Clock {
        moves,
        base_ms,
        inc_ms: seconds(inc)?,
    })
}
