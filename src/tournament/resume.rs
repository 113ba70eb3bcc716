//! Run identity and resuming from the records file.
//!
//! Every record carries a `Run` tag, `<start time> seed=<seed>
//! config=<fingerprint> [shard=K/N] check=<crc32>`: games of one run share
//! it, so rescoring pairs games only within a run however many runs were
//! appended to one file, and `--resume` finds the games of an interrupted
//! run (same settings, same seed: same fingerprint; the same share of a
//! sharded match) to count them once and play only the rest, under the same
//! `Run` tag. The checksum covers the rest of the tag: a tag damaged by one
//! character would otherwise name another run, and its game be played or
//! counted twice. Tags written before checksums (three words) are read as
//! they are.

use super::schedule::Shard;
use crate::client::records::{GameRecord, GameResult, RecordError, RecordReader};
use crate::results::run_tag::parse_run_tag;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Who a run is: its start and what it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunId {
    /// `2026-11-30T09:45:22.123Z`: to the millisecond, so that two runs
    /// appended to one file in quick succession still differ.
    pub started: String,
    pub seed: u64,
    /// [`fingerprint`] of everything that decides the games.
    pub config: u64,
    /// The share of the match this run plays, if sharded: two shares have
    /// the same settings, and must not resume each other's games.
    pub shard: Option<Shard>,
}

impl RunId {
    pub fn new(seed: u64, config: u64, shard: Option<Shard>) -> RunId {
        RunId {
            started: utc_now().timestamp_ms(),
            seed,
            config,
            shard,
        }
    }

    /// The `Run` tag's value.
    pub fn tag(&self) -> String {
        let body = format!("{} {}", self.started, self.settings());
        format!("{body} check={:08x}", crc32fast::hash(body.as_bytes()))
    }

    /// What a resumed run shares with the interrupted one.
    fn settings(&self) -> String {
        let mut text = format!("seed={} config={:016x}", self.seed, self.config);
        if let Some(shard) = self.shard {
            text += &format!(" shard={}/{}", shard.index + 1, shard.count);
        }
        text
    }
}

/// FNV-1a, 64 bits: a stable hash of the settings' description (std's
/// hasher may change between Rust versions; records outlive builds).
pub fn fingerprint(description: &str) -> u64 {
    description.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A UTC calendar time, to the second.
pub struct UtcTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub seconds_of_day: u64,
    pub millis: u32,
}

impl UtcTime {
    /// `2026-11-30T09:45:22Z`
    pub fn timestamp(&self) -> String {
        let s = self.seconds_of_day;
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year,
            self.month,
            self.day,
            s / 3600,
            s / 60 % 60,
            s % 60
        )
    }

    /// `2026-11-30T09:45:22.123Z`
    pub fn timestamp_ms(&self) -> String {
        let mut text = self.timestamp();
        text.insert_str(text.len() - 1, &format!(".{:03}", self.millis));
        text
    }

    /// PGN's `Date`: `2026.11.30`
    pub fn pgn_date(&self) -> String {
        format!("{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

pub fn utc_now() -> UtcTime {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    UtcTime {
        millis: now.subsec_millis(),
        ..utc_from_unix(now.as_secs())
    }
}

/// Days since 1970 to the proleptic Gregorian calendar (H. Hinnant's
/// `civil_from_days`).
pub fn utc_from_unix(secs: u64) -> UtcTime {
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    UtcTime {
        year,
        month,
        day,
        seconds_of_day: secs % 86_400,
        millis: 0,
    }
}

/// What an earlier, interrupted run of the same settings left.
pub struct Resumed {
    /// The run's identity, to keep writing under.
    pub run: RunId,
    /// Its finished games.
    pub games: Vec<ResumedGame>,
}

/// What resuming needs of a finished game (not its moves).
pub struct ResumedGame {
    /// The `Game` tag: 1 + the index in the full schedule.
    pub number: usize,
    pub result: GameResult,
    pub termination: String,
}

/// Reads `path` for `--resume`, a line at a time: the games of the last run
/// with `run`'s settings, if any. A record cut off mid-write (the machine
/// went down) is removed from the file, since it will be played again;
/// damage anywhere else is an error.
pub fn load(path: &Path, run: &RunId) -> Result<Option<Resumed>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut input = BufReader::new(file);
    let mut records = RecordReader::default();
    let (mut offset, mut complete) = (0u64, 0u64);
    let mut damage: Option<RecordError> = None;
    let mut found: Option<(String, Vec<ResumedGame>)> = None;
    let mut line = String::new();
    loop {
        line.clear();
        let read = input
            .read_line(&mut line)
            .with_context(|| format!("reading {}", path.display()))?;
        if read == 0 {
            break;
        }
        offset += read as u64;
        if let Some(error) = &damage {
            // A later game's end: the damage is not a cut-off tail.
            if is_result_line(&line) {
                bail!("{}: {error}", path.display());
            }
            continue;
        }
        match records.line(&line) {
            Ok(Some(game)) => {
                complete = offset;
                keep(&game, run, &mut found)
                    .with_context(|| format!("{}: a record of the run", path.display()))?;
            }
            // Blank lines after a game belong to it.
            Ok(None) if !records.in_game() => complete = offset,
            Ok(None) => {}
            Err(error) => damage = Some(error),
        }
    }
    if damage.is_some() || records.in_game() {
        log::warn!(
            "{}: dropping an unfinished last record ({} bytes)",
            path.display(),
            offset - complete
        );
        File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(complete))
            .with_context(|| format!("truncating {}", path.display()))?;
    }
    let Some((started, games)) = found else {
        return Ok(None);
    };
    Ok(Some(Resumed {
        run: RunId {
            started,
            ..run.clone()
        },
        games,
    }))
}

/// Adds a game of a run with these settings to `found` (the run's start,
/// its games), starting afresh when a newer such run begins. Every `Run`
/// tag is checked, not only this run's: a damaged one may have been this
/// run's.
fn keep(
    game: &GameRecord,
    run: &RunId,
    found: &mut Option<(String, Vec<ResumedGame>)>,
) -> Result<()> {
    let Some(tag) = game.tag("Run") else {
        return Ok(());
    };
    let tag = parse_run_tag(tag).with_context(|| game.label())?;
    if tag.settings != run.settings() {
        return Ok(());
    }
    let Some(number) = game.tag("Game").and_then(|n| n.parse::<usize>().ok()) else {
        bail!("no Game number");
    };
    if found
        .as_ref()
        .is_none_or(|(current, _)| current != tag.started)
    {
        *found = Some((tag.started.to_string(), Vec::new()));
    }
    let (_, games) = found.as_mut().expect("set above");
    games.push(ResumedGame {
        number,
        result: game.result,
        termination: game.tag("Termination").unwrap_or("unknown").to_string(),
    });
    Ok(())
}

/// A line that ends a game: its last token is a result.
fn is_result_line(line: &str) -> bool {
    let content = line.trim();
    !content.starts_with('[')
        && content
            .split_whitespace()
            .last()
            .is_some_and(|t| GameResult::from_token(t).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::run_tag::RunTag;

    #[test]
    fn calendar_dates() {
        assert_eq!(utc_from_unix(0).timestamp(), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696
        assert_eq!(
            utc_from_unix(951_827_696).timestamp(),
            "2000-02-29T12:34:56Z"
        );
        assert_eq!(utc_from_unix(1_796_031_922).pgn_date(), "2026.11.30");
        assert_eq!(utc_from_unix(0).timestamp_ms(), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn run_tags_match_settings_not_start() {
        let run = RunId::new(7, fingerprint("a"), None);
        let tag = run.tag();
        let settings = |tag: &str| parse_run_tag(tag).unwrap().settings.to_string();
        assert_eq!(settings(&tag), run.settings());
        let later = RunId::new(7, fingerprint("a"), None);
        assert_eq!(settings(&later.tag()), run.settings());
        assert_ne!(
            settings(&tag),
            RunId::new(8, fingerprint("a"), None).settings()
        );
        assert_ne!(
            settings(&tag),
            RunId::new(7, fingerprint("b"), None).settings()
        );
        let shard = |index| Some(Shard { index, count: 2 });
        assert_ne!(
            RunId::new(7, fingerprint("a"), shard(0)).settings(),
            RunId::new(7, fingerprint("a"), shard(1)).settings(),
            "two shares of one match are two runs"
        );
        // Tags of records written before checksums are still read.
        let legacy = "2026-11-30T09:45:22.123Z seed=7 config=00000000000000ff";
        assert_eq!(
            parse_run_tag(legacy).unwrap(),
            RunTag {
                started: "2026-11-30T09:45:22.123Z",
                settings: "seed=7 config=00000000000000ff"
            }
        );
    }

    #[test]
    fn a_run_tag_damaged_in_any_one_character_is_refused() {
        let tag = RunId::new(7, fingerprint("a"), Some(Shard { index: 0, count: 2 })).tag();
        for (i, c) in tag.char_indices() {
            let other = if c == '1' { '2' } else { '1' };
            let damaged = format!("{}{other}{}", &tag[..i], &tag[i + c.len_utf8()..]);
            assert!(parse_run_tag(&damaged).is_err(), "{damaged}");
        }
    }

    #[test]
    fn a_cut_off_last_record_is_dropped_and_damage_elsewhere_refused() {
        let run = RunId::new(3, 99, None);
        let game = |number: usize| {
            let mut r = GameRecord {
                moves: vec!["@a1".into()],
                result: GameResult::WhiteWins,
                ..GameRecord::default()
            };
            r.set_tag("Run", run.tag());
            r.set_tag("Game", number.to_string());
            r.write()
        };
        let path = std::env::temp_dir().join(format!("yote-resume-{}.pgn", std::process::id()));
        let whole = game(1) + &game(2);
        for cut in ["[Run \"2026", "[Game \"3\"]\n[Result \"1-0\"]\n\n1. @a1 @b"] {
            std::fs::write(&path, format!("{whole}{cut}")).unwrap();
            let resumed = load(&path, &run).unwrap().expect("the run is found");
            assert_eq!(resumed.games.len(), 2);
            assert_eq!(resumed.run, run);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), whole, "{cut:?}");
        }
        std::fs::write(&path, format!("{}[Oops\n{}", game(1), game(2))).unwrap();
        assert!(load(&path, &run).is_err(), "damage mid-file");
        let other = RunId::new(4, 99, None);
        std::fs::write(&path, &whole).unwrap();
        assert!(load(&path, &other).unwrap().is_none(), "another seed");
        let _ = std::fs::remove_file(&path);
    }
}
