//! The journal of an analysis run: one line per finished position, written
//! as it finishes, so a run that is interrupted (Ctrl-C, a reboot) resumes
//! without searching those positions again.
//!
//! ```text
//! yote-analyse-journal 1 <fingerprint>
//! <game> <ply> <depth> <nodes> <value> <pv move> …
//! ```
//!
//! The fingerprint covers the input text, the search limits and the engine
//! version: a journal of another run is set aside (renamed `.stale`) rather
//! than mixed in. A line cut short by a kill is dropped on reading.

use super::judge::Value;
use super::{Job, PositionReport};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

const MAGIC: &str = "yote-analyse-journal 1";

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
    pub fn open(
        path: &Path,
        fingerprint: u64,
    ) -> io::Result<(Journal, HashMap<Job, PositionReport>)> {
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
    pub fn record(&mut self, job: Job, report: &PositionReport) -> io::Result<()> {
        writeln!(self.out, "{}", entry_text(job, report))?;
        self.out.flush()
    }

    /// The run is complete: the journal is no longer needed.
    pub fn remove(self) -> io::Result<()> {
        drop(self.out);
        fs::remove_file(&self.path)
    }
}

fn entry_text(job: Job, report: &PositionReport) -> String {
    let value = match report.value {
        Value::Cp(c) => format!("cp:{c}"),
        Value::Win(n) => format!("win:{n}"),
        Value::Loss(n) => format!("loss:{n}"),
        Value::Draw => "draw".to_string(),
    };
    let mut text = format!(
        "{} {} {} {} {value}",
        job.game, job.ply, report.depth, report.nodes
    );
    for mv in &report.pv {
        text.push(' ');
        text.push_str(mv);
    }
    text
}

fn parse_entry(line: &str) -> Option<(Job, PositionReport)> {
    let mut words = line.split_whitespace();
    let game = words.next()?.parse().ok()?;
    let ply = words.next()?.parse().ok()?;
    let depth = words.next()?.parse().ok()?;
    let nodes = words.next()?.parse().ok()?;
    let value = match words.next()?.split_once(':') {
        Some(("cp", n)) => Value::Cp(n.parse().ok()?),
        Some(("win", n)) => Value::Win(n.parse().ok()?),
        Some(("loss", n)) => Value::Loss(n.parse().ok()?),
        None if line.split_whitespace().nth(4) == Some("draw") => Value::Draw,
        _ => return None,
    };
    let pv = words.map(str::to_string).collect();
    Some((
        Job { game, ply },
        PositionReport {
            value,
            depth,
            nodes,
            pv,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(value: Value, pv: &[&str]) -> PositionReport {
        PositionReport {
            value,
            depth: 7,
            nodes: 1234,
            pv: pv.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn entries_round_trip_and_torn_lines_are_dropped() {
        for r in [
            report(Value::Cp(-35), &["@c3", "c3c4"]),
            report(Value::Win(9), &["c3c5xd4"]),
            report(Value::Loss(4), &[]),
            report(Value::Draw, &[]),
        ] {
            let job = Job { game: 3, ply: 17 };
            assert_eq!(parse_entry(&entry_text(job, &r)), Some((job, r)));
        }
        assert_eq!(parse_entry("3 17 7"), None);
        assert_eq!(parse_entry("3 17 7 12 cp:"), None);
        assert_eq!(parse_entry("3 17 7 12 mate:3"), None);
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
        assert_eq!(done[&job].pv, vec!["@a1".to_string()]);
        drop(journal);
        let (journal, done) = Journal::open(&path, 43).unwrap();
        assert!(done.is_empty(), "another run's journal must not be used");
        assert!(path.with_extension("stale").exists());
        journal.remove().unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }
}
