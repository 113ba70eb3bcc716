//! Run identity and resuming from the records file.
//!
//! Every record carries a `Run` tag, `<start time> seed=<seed>
//! config=<fingerprint>`: games of one run share it, so rescoring pairs
//! games only within a run however many runs were appended to one file, and
//! `--resume` finds the games of an interrupted run (same settings, same
//! seed: same fingerprint) to count them once and play only the rest, under
//! the same `Run` tag.

use super::records::GameRecord;
use anyhow::{Context, Result, bail};
use std::fs::File;
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
}

impl RunId {
    pub fn new(seed: u64, config: u64) -> RunId {
        RunId {
            started: utc_now().timestamp_ms(),
            seed,
            config,
        }
    }

    /// The `Run` tag's value.
    pub fn tag(&self) -> String {
        format!(
            "{} seed={} config={:016x}",
            self.started, self.seed, self.config
        )
    }

    /// Whether a `Run` tag belongs to a run of these settings.
    fn same_settings(&self, tag: &str) -> bool {
        tag.ends_with(&format!(" seed={} config={:016x}", self.seed, self.config))
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
    pub games: Vec<GameRecord>,
}

/// Reads `path` for `--resume`: the games of the last run with `run`'s
/// settings, if any. A game cut off mid-write (the machine went down) is
/// removed from the file, since it will be played again.
pub fn load(path: &Path, run: &RunId) -> Result<Option<Resumed>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let complete = complete_prefix(&text);
    let games = GameRecord::parse_all(&text[..complete])
        .with_context(|| format!("reading {} to resume", path.display()))?;
    if complete < text.len() {
        log::warn!(
            "{}: dropping an unfinished last record ({} bytes)",
            path.display(),
            text.len() - complete
        );
        File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(complete as u64))
            .with_context(|| format!("truncating {}", path.display()))?;
    }
    let Some(tag) = games
        .iter()
        .rev()
        .filter_map(|g| g.tag("Run"))
        .find(|t| run.same_settings(t))
        .map(str::to_string)
    else {
        return Ok(None);
    };
    let Some(started) = tag.split_whitespace().next() else {
        bail!("malformed Run tag '{tag}'");
    };
    let games = games
        .into_iter()
        .filter(|g| g.tag("Run") == Some(tag.as_str()))
        .collect();
    Ok(Some(Resumed {
        run: RunId {
            started: started.to_string(),
            ..run.clone()
        },
        games,
    }))
}

/// The length of `text` up to the end of its last complete game: the line
/// holding a game's final result token, which the writer puts on a line of
/// its own.
fn complete_prefix(text: &str) -> usize {
    let mut end = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        let content = line.trim();
        let is_result = matches!(content, "1-0" | "0-1" | "1/2-1/2" | "*")
            || content
                .rsplit(char::is_whitespace)
                .next()
                .is_some_and(|last| matches!(last, "1-0" | "0-1" | "1/2-1/2" | "*"))
                && !content.starts_with('[');
        if is_result && line.ends_with('\n') {
            end = offset;
        }
    }
    // Blank lines after the last result belong to it.
    end + text[end..].len() - text[end..].trim_start_matches(['\n', '\r']).len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let run = RunId::new(7, fingerprint("a"));
        let tag = run.tag();
        assert!(run.same_settings(&tag));
        assert!(run.same_settings(&tag.replacen("20", "19", 1)));
        assert!(!RunId::new(8, fingerprint("a")).same_settings(&tag));
        assert!(!RunId::new(7, fingerprint("b")).same_settings(&tag));
    }

    #[test]
    fn a_cut_off_last_record_is_not_part_of_the_prefix() {
        let whole = "[Result \"1-0\"]\n\n1. @a1\n1-0\n\n";
        let cut = format!("{whole}[Result \"0-1\"]\n\n1. @a1 @b");
        assert_eq!(complete_prefix(&cut), whole.len());
        assert_eq!(complete_prefix(whole), whole.len());
        assert_eq!(complete_prefix("[Result \"1-0\"]\n\n1. @a1 1-0"), 0);
    }
}
