//! The journal of an analysis run: one line per judged move, written as
//! it finishes, so a run that is interrupted (Ctrl-C, a reboot) resumes
//! without searching those positions again.
//!
//! ```text
//! yote-analyse-journal 2 <fingerprint>
//! <crc32> <game> <ply> <nodes> <best move> <best value> <best depth> <played value> <played depth> <line move> …
//! ```
//!
//! The fingerprint covers the input text, the search limits and the engine
//! version: a journal of another run is set aside (renamed `.stale`) rather
//! than mixed in. Every entry starts with the CRC-32 of the rest of its
//! line, so a line cut short by a kill — even where what is left still
//! reads as an entry, `cp:-13` cut to `cp:-1` — is dropped on reading.

use super::judge::Value;
use super::{Job, MoveReport, Scored};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

const MAGIC: &str = "yote-analyse-journal 2";

pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
}

/// Identifies a run: the same input, limits and engine give the same value.
pub fn fingerprint(input: &str, settings_text: &str) -> u64 {
    // DefaultHasher's keys are fixed; should a Rust release change its
    // algorithm, old journals are merely set aside and recomputed.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    input.hash(&mut hasher);
    settings_text.hash(&mut hasher);
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    hasher.finish()
}

impl Journal {
    /// Opens the journal at `path` for run `fingerprint`, returning the
    /// positions it already holds. The file is rewritten with just those
    /// entries, so a torn last line does not linger.
    pub fn open(path: &Path, fingerprint: u64) -> io::Result<(Journal, HashMap<Job, MoveReport>)> {
        let header = format!("{MAGIC} {fingerprint:016x}");
        let mut done = HashMap::new();
        if let Ok(text) = fs::read_to_string(path) {
            let mut lines = text.lines();
            if lines.next() == Some(header.as_str()) {
                done.extend(lines.filter_map(parse_entry));
            } else {
                let stale = path.with_extension("stale");
                fs::rename(path, &stale)?;
                log::warn!(
                    "journal {} belongs to another run; moved to {}",
                    path.display(),
                    stale.display()
                );
            }
        }
        let mut out = BufWriter::new(
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)?,
        );
        writeln!(out, "{header}")?;
        let mut entries: Vec<_> = done.iter().collect();
        entries.sort_by_key(|(job, _)| **job);
        for (job, report) in entries {
            writeln!(out, "{}", entry_text(*job, report))?;
        }
        out.flush()?;
        Ok((
            Journal {
                path: path.to_path_buf(),
                out,
            },
            done,
        ))
    }

    /// Records a finished position; flushed at once, so a kill loses at
    /// most the position being written.
    pub fn record(&mut self, job: Job, report: &MoveReport) -> io::Result<()> {
        writeln!(self.out, "{}", entry_text(job, report))?;
        self.out.flush()
    }

    /// The run is complete: the journal is no longer needed.
    pub fn remove(self) -> io::Result<()> {
        drop(self.out);
        fs::remove_file(&self.path)
    }
}

fn entry_text(job: Job, report: &MoveReport) -> String {
    let mut text = format!(
        "{} {} {} {} {} {}",
        job.game,
        job.ply,
        report.nodes,
        report.best_move,
        scored_text(report.best),
        scored_text(report.played)
    );
    for mv in &report.line {
        text.push(' ');
        text.push_str(mv);
    }
    format!("{:08x} {text}", crc32fast::hash(text.as_bytes()))
}

fn scored_text(scored: Scored) -> String {
    let value = match scored.value {
        Value::Cp(c) => format!("cp:{c}"),
        Value::Win(n) => format!("win:{n}"),
        Value::Loss(n) => format!("loss:{n}"),
        Value::Draw => "draw".to_string(),
    };
    format!("{value} {}", scored.depth)
}

/// An entry, or None for a line that is not one whole entry.
fn parse_entry(line: &str) -> Option<(Job, MoveReport)> {
    let (crc, text) = line.split_once(' ')?;
    if crc.len() != 8 || u32::from_str_radix(crc, 16).ok()? != crc32fast::hash(text.as_bytes()) {
        return None;
    }
    let mut words = text.split_whitespace();
    let game = words.next()?.parse().ok()?;
    let ply = words.next()?.parse().ok()?;
    let nodes = words.next()?.parse().ok()?;
    let best_move = words.next()?.to_string();
    let best = parse_scored(&mut words)?;
    let played = parse_scored(&mut words)?;
    let line = words.map(str::to_string).collect();
    Some((
        Job { game, ply },
        MoveReport {
            best_move,
            best,
            played,
            line,
            nodes,
        },
    ))
}

fn parse_scored<'a>(words: &mut impl Iterator<Item = &'a str>) -> Option<Scored> {
    let value = match words.next()? {
        "draw" => Value::Draw,
        word => match word.split_once(':')? {
            ("cp", n) => Value::Cp(n.parse().ok()?),
            ("win", n) => Value::Win(n.parse().ok()?),
            ("loss", n) => Value::Loss(n.parse().ok()?),
            _ => return None,
        },
    };
    let depth = words.next()?.parse().ok()?;
    Some(Scored { value, depth })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(value: Value, line: &[&str]) -> MoveReport {
        MoveReport {
            best_move: "@c3".to_string(),
            best: Scored { value, depth: 7 },
            played: Scored {
                value: Value::Cp(-13),
                depth: 7,
            },
            line: line.iter().map(|s| s.to_string()).collect(),
            nodes: 1234,
        }
    }

    #[test]
    fn entries_round_trip_and_every_cut_is_dropped() {
        for r in [
            report(Value::Cp(-35), &["@c3", "c3c4"]),
            report(Value::Win(9), &["c3c5xd4"]),
            report(Value::Loss(4), &[]),
            report(Value::Draw, &[]),
        ] {
            let job = Job { game: 3, ply: 17 };
            let text = entry_text(job, &r);
            assert_eq!(parse_entry(&text), Some((job, r)));
            // A kill can cut the line anywhere; what is left never reads as
            // an entry, even where it still parses (`cp:-13` → `cp:-1`).
            for cut in 0..text.len() {
                assert_eq!(parse_entry(&text[..cut]), None, "{:?}", &text[..cut]);
            }
        }
        assert_eq!(
            parse_entry("3 17 7 12 cp:-1 3 cp:-1 3"),
            None,
            "no checksum"
        );
    }

    #[test]
    fn a_journal_resumes_only_its_own_run() {
        let dir = std::env::temp_dir().join(format!("yote-journal-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.journal");
        let job = Job { game: 0, ply: 2 };
        let (mut journal, done) = Journal::open(&path, 42).unwrap();
        assert!(done.is_empty());
        journal
            .record(job, &report(Value::Cp(12), &["@a1"]))
            .unwrap();
        drop(journal);
        // A torn line at the end, as a kill mid-write leaves.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        write!(f, "0 3 5").unwrap();
        drop(f);
        let (journal, done) = Journal::open(&path, 42).unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!(done[&job].line, vec!["@a1".to_string()]);
        drop(journal);
        let (journal, done) = Journal::open(&path, 43).unwrap();
        assert!(done.is_empty(), "another run's journal must not be used");
        assert!(path.with_extension("stale").exists());
        journal.remove().unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }
}
