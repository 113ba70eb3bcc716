//! The one writer every stdout line goes through, and the text of the lines
//! that carry search results.
//!
//! The search reports from its own thread while the protocol thread answers
//! `isready`; a GUI reads whole lines, so each line is written and flushed
//! under one lock and lines from the two threads can never interleave.

use crate::rules::{Move, Position, Rules};
use crate::search::{Score, SearchInfo};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

/// Longest `info string` text: error messages echo user input, and a GUI log
/// should not be flooded by one garbage line.
const MAX_INFO_STRING: usize = 400;

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    pub fn stdout() -> Output {
        Output::new(std::io::stdout())
    }

    pub fn new(sink: impl Write + Send + 'static) -> Output {
        Output {
            sink: Arc::new(Mutex::new(Box::new(sink))),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        // A panic elsewhere must not silence the engine: the sink holds no
        // invariant a half-finished write could break.
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line and flushes it.
    pub fn line(&self, text: &str) {
        self.lines(std::iter::once(text));
    }

    /// Writes several lines as one block (nothing from another thread lands
    /// between them), then flushes.
    pub fn lines<'a>(&self, lines: impl IntoIterator<Item = &'a str>) {
        let mut sink = self.lock();
        let result = lines
            .into_iter()
            .try_for_each(|l| writeln!(sink, "{}", l.trim_end()))
            .and_then(|()| sink.flush());
        if let Err(e) = result {
            // The reader went away; there is no one left to tell.
            log::debug!("stdout: {e}");
        }
    }

    /// `info string <text>`, made safe to be one protocol line.
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {}", one_line(text)));
    }

    pub fn error(&self, text: &str) {
        self.info_string(&format!("error: {text}"));
    }

    /// The table files refused while probing since the last call, one
    /// error line each: a file dropped mid-game (damaged, or overwritten
    /// in place) must not pass unseen, and the search cannot say it.
    pub fn table_refusals(&self) {
        for refusal in crate::tablebase::mapped::take_refusals() {
            self.error(&refusal);
        }
    }

    /// A `query` that cannot be answered: the error line every refused
    /// command prints, then the one `response` line every query gets, so
    /// a client waiting for it is never left hanging.
    pub fn query_error(&self, text: &str) {
        let text = one_line(text);
        self.lines([
            format!("info string error: {text}").as_str(),
            format!("response error {text}").as_str(),
        ]);
    }
}

/// Control characters become `?` and long texts are cut, so a message that
/// quotes user input stays a single, readable line.
fn one_line(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_INFO_STRING)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().nth(MAX_INFO_STRING).is_some() {
        out.push_str("...");
    }
    out
}

pub fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("score cp {cp}"),
        Score::Mate(n) => format!("score mate {n}"),
    }
}

/// The `info depth … pv …` line for one search report. `pv` must already be
/// checked (see `legal_prefix`).
pub fn info_line(info: &SearchInfo, pv: &[Move], rules: &Rules) -> String {
    let mut line = format!(
        "info depth {} seldepth {} multipv {} {} nodes {} nps {} time {} hashfull {}",
        info.depth,
        info.seldepth.max(info.depth),
        info.multipv.max(1),
        score_text(info.score),
        info.nodes,
        info.nps,
        info.time_ms,
        info.hashfull.min(1000),
    );
    if let Some(hits) = info.tbhits {
        let _ = write!(line, " tbhits {hits}");
    }
    if !pv.is_empty() {
        line.push_str(" pv");
        for mv in pv {
            let _ = write!(line, " {}", rules.move_text(mv));
        }
    }
    line
}

pub fn bestmove_line(best: Option<&Move>, ponder: Option<&Move>, rules: &Rules) -> String {
    match (best, ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(b), None) => format!("bestmove {}", rules.move_text(b)),
        (Some(b), Some(p)) => format!(
            "bestmove {} ponder {}",
            rules.move_text(b),
            rules.move_text(p)
        ),
    }
}

/// The longest prefix of `pv` that is a legal line from `root`. The search
/// is being rewritten; the protocol promises GUIs legal lines regardless.
pub fn legal_prefix(rules: &Rules, root: &Position, pv: &[Move]) -> Vec<Move> {
    let mut pos = *root;
    let mut line = Vec::with_capacity(pv.len());
    for mv in pv {
        // Checked directly: listing every move could take seconds (and
        // gigabytes) in a large MultiJump position.
        if rules.status(&pos).is_some() || !rules.is_legal(&pos, mv) {
            break;
        }
        rules.apply(&mut pos, mv);
        line.push(*mv);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn info_strings_stay_on_one_line_without_trailing_spaces() {
        let buf = Buffer::default();
        let out = Output::new(buf.clone());
        out.info_string("a\nb\r\u{7}c  ");
        out.info_string(&"x".repeat(5000));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "info string a?b??c");
        assert_eq!(lines.len(), 2);
        assert!(lines[1].len() < 420 && lines[1].ends_with("..."));
    }

    #[test]
    fn info_line_has_every_field_and_only_integers() {
        let rules = Rules::standard();
        let pos = rules.start_position();
        let mv = rules.parse_move(&pos, "@c3").unwrap();
        let info = SearchInfo {
            depth: 3,
            seldepth: 1,
            multipv: 1,
            score: Score::Mate(-2),
            nodes: 1234,
            nps: 5678,
            time_ms: 9,
            hashfull: 12,
            tbhits: None,
            pv: vec![mv],
        };
        assert_eq!(
            info_line(&info, &legal_prefix(&rules, &pos, &info.pv), &rules),
            "info depth 3 seldepth 3 multipv 1 score mate -2 nodes 1234 nps 5678 time 9 hashfull 12 pv @c3"
        );
        // With tables loaded the line counts their hits.
        let with_tables = SearchInfo {
            tbhits: Some(7),
            ..info.clone()
        };
        assert!(info_line(&with_tables, &[mv], &rules).ends_with("hashfull 12 tbhits 7 pv @c3"));
        // A move that is not legal after @c3 cuts the line there.
        assert_eq!(legal_prefix(&rules, &pos, &[mv, mv]), vec![mv]);
    }
}
