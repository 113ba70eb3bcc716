//! Generation within a memory bound: the classes stay on disk, and a class
//! pair is solved with only the classes its exits can reach read into
//! memory, dropped when the pair is written. The peak is then the largest
//! pair's working set plus what it probes, not the whole set (which for
//! nine pieces would not fit in this machine's memory).

use super::class::{Class, class_pairs, table_classes};
use super::file;
use super::generate::{Progress, Report, Request, load, wait_for};
use super::retrograde::solve_pair;
use super::table::Tablebase;
use super::value::Metric;
use crate::rules::{Rules, Variant};
use anyhow::{Context, Result, bail};
use std::collections::BTreeSet;
use std::time::Instant;

/// Every class that a move from a position of `class` can lead to, other
/// than the class pair itself: a superset, from the piece counts alone. The
/// mover keeps its pieces (a placement moves one from hand to board); a
/// capture takes board pieces and removals take board or hand pieces of the
/// other side only; the child is seen from either side (bonus turns).
pub fn exit_classes(class: Class, variant: &Variant, max_pieces: u32) -> Vec<Class> {
    let needs_table: BTreeSet<Class> = table_classes(variant, max_pieces).into_iter().collect();
    let mut movers = vec![(class.mover_board, class.mover_hand)];
    if class.mover_hand > 0 {
        movers.push((class.mover_board + 1, class.mover_hand - 1));
    }
    let mut exits = BTreeSet::new();
    for &(mb, mh) in &movers {
        for ob in 0..=class.opponent_board {
            for oh in 0..=class.opponent_hand {
                let same_side = Class::new(mb, ob, mh, oh);
                for child in [same_side, same_side.partner()] {
                    if child != class && child != class.partner() && needs_table.contains(&child) {
                        exits.insert(child);
                    }
                }
            }
        }
    }
    exits.into_iter().collect()
}

/// The classes a pair's exits can reach, for the pair as a whole.
pub fn probed_by(pair: &[Class], variant: &Variant, max_pieces: u32) -> Vec<Class> {
    let mut all = BTreeSet::new();
    for &class in pair {
        all.extend(exit_classes(class, variant, max_pieces));
    }
    all.into_iter().collect()
}

/// Resets the process's peak resident memory (Linux: `clear_refs` 5), so
/// that the peak can be read per pair. Best effort: elsewhere the peak is
/// the run's.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's CPU time so far (user + system), in seconds (Linux: the
/// clock ticks of `/proc/self/stat`, 100 a second on every Linux ABI). The
/// per-pair figure the estimates need on a machine shared with others.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks = |n: usize| fields.get(n - 3)?.parse::<f64>().ok();
    Some((ticks(14)? + ticks(15)?) / 100.0)
}

/// `tb generate --memory-bound`: what `generate` does (resumable, sharded),
/// with only the pair being solved and the classes it probes in memory.
/// Returns no tables: they are in `request.dir`.
pub fn generate_bounded(
    rules: &Rules,
    request: &Request,
    progress: &dyn Progress,
) -> Result<Report> {
    let start = Instant::now();
    let variant = rules.variant();
    let cells = rules.geometry().cell_count();
    let spec = file::table_rules(variant);
    let Some(dir) = &request.dir else {
        bail!("generation within a memory bound needs --dir")
    };
    std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    let mut report = Report::default();
    let pairs = class_pairs(&table_classes(variant, request.pieces));
    progress.start(pairs.iter().flatten().map(|c| c.size(cells)).sum());
    let mut stage_start = 0;
    let mut peak = 0;
    while stage_start < pairs.len() {
        let stage = pairs[stage_start][0].stage();
        let stage_len = pairs[stage_start..]
            .iter()
            .take_while(|p| p[0].stage() == stage)
            .count();
        let mut waiting = Vec::new();
        for (n, pair) in pairs[stage_start..stage_start + stage_len]
            .iter()
            .enumerate()
        {
            if on_disk(dir, &spec, pair, cells, request.metric, progress)? {
                report.kept.extend(pair);
                progress.advance(pair.iter().map(|c| c.size(cells)).sum());
                continue;
            }
            if !request.shard.owns(n) {
                waiting.push(pair);
                continue;
            }
            progress.class(pair);
            solve_one(rules, request, pair, &mut report, progress)?;
            peak = peak.max(peak_memory_mib().unwrap_or(0));
        }
        for pair in waiting {
            for &class in pair {
                drop(wait_for(request, &spec, class, cells, progress)?);
            }
        }
        stage_start += stage_len;
    }
    report.elapsed = start.elapsed();
    // The peak is reset for every pair: the run's is the largest pair's.
    progress.note(&format!("largest peak memory of a pair: {peak} MiB"));
    Ok(report)
}

/// Whether both classes of `pair` are on disk and sound (each read and
/// checked, then dropped).
fn on_disk(
    dir: &std::path::Path,
    spec: &str,
    pair: &[Class],
    cells: u8,
    metric: Metric,
    progress: &dyn Progress,
) -> Result<bool> {
    for &class in pair {
        if load(dir, spec, class, cells, metric, progress)?.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Reads what `pair` probes, solves it, writes it, and reports the pair's
/// own peak memory.
fn solve_one(
    rules: &Rules,
    request: &Request,
    pair: &[Class],
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<()> {
    let variant = rules.variant();
    let cells = rules.geometry().cell_count();
    let spec = file::table_rules(variant);
    let dir = request.dir.as_deref().expect("checked by the caller");
    reset_peak_memory();
    let pair_start = Instant::now();
    let cpu_start = cpu_seconds();
    let mut probed = Tablebase::new(rules.clone(), request.pieces, request.metric);
    let mut probed_positions = 0;
    for class in probed_by(pair, variant, request.pieces) {
        let Some(table) = load(dir, &spec, class, cells, request.metric, progress)? else {
            bail!(
                "class {class}, probed by class {}, is not in the directory",
                pair[0]
            )
        };
        if table.losses_derived {
            bail!(
                "class {class} in {} stores the wins only (written by a whole-set run); \
                 --memory-bound needs every distance stored: use a whole-set run, or another directory",
                dir.display()
            );
        }
        probed_positions += class.size(cells);
        probed.insert(table);
    }
    let solved = solve_pair(&probed, pair, request.threads, &|n| progress.advance(n));
    drop(probed);
    for table in solved {
        // Every distance stored: a later pair loads this class alone, without
        // the classes its losses would be derived from.
        let layout = file::Layout {
            losses_derived: false,
            ..request.layout()
        };
        file::write(dir, &spec, &table, layout, request.threads)?;
        report.positions_solved += table.index.size();
        report.solved.push(table.class());
    }
    let names: Vec<String> = pair.iter().map(|c| c.to_string()).collect();
    let cpu = cpu_start.zip(cpu_seconds()).map(|(a, b)| b - a);
    progress.note(&format!(
        "class {} solved in {:.1} s ({} CPU s), {} positions probed, peak memory {} MiB",
        names.join(" + "),
        pair_start.elapsed().as_secs_f64(),
        cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
        probed_positions,
        peak_memory_mib().map_or("?".to_string(), |m| m.to_string())
    ));
    Ok(())
}

/// The process's peak resident memory in MiB (Linux), for the reports.
pub fn peak_memory_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_and_the_captures_of_a_standard_class_are_exits() {
        let v = Variant::STANDARD;
        let class = Class::new(2, 3, 1, 1);
        let exits = exit_classes(class, &v, 7);
        // A placement (3 on the board, the opponent to move: 3 3 1 0), a
        // capture with its removal from the board (the opponent keeps 1 on
        // the board and 1 in hand: 1 2 1 1), never the pair itself, and
        // nothing the counts end (the opponent down to one piece).
        assert!(exits.contains(&Class::new(3, 3, 1, 0)));
        assert!(exits.contains(&Class::new(1, 2, 1, 1)));
        assert!(!exits.contains(&class) && !exits.contains(&class.partner()));
        assert!(!exits.contains(&Class::new(0, 2, 1, 1)));
        assert!(exits.iter().all(|c| c.stage() < class.stage()));
    }
}
