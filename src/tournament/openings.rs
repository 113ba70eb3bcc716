//! Openings: where each game pair starts. Either random balanced k-ply
//! openings generated for the variant from a seed, or lines of a file, each a
//! position text or a move list from the start. Every opening is played twice
//! with colours swapped (see schedule).

use crate::client::records::GameRecord;
use crate::rng::SplitMix64;
use crate::rules::{Game, MoveList, Player, Rules};
use anyhow::{Context, Result, bail};
use std::collections::HashSet;

/// A start for a game pair: an optional position text, then moves from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// None for the variant's start position.
    pub fen: Option<String>,
    pub moves: Vec<String>,
}

impl Opening {
    pub fn startpos() -> Opening {
        Opening {
            fen: None,
            moves: Vec::new(),
        }
    }

    /// The game after the opening, every move checked by the rules.
    pub fn game(&self, rules: &Rules) -> Result<Game> {
        let start = match &self.fen {
            None => rules.start_position(),
            Some(text) => rules
                .parse_position(text)
                .with_context(|| format!("opening position '{text}'"))?,
        };
        let mut game = Game::from_position(rules.clone(), start);
        for mv in &self.moves {
            game.play_text(mv)
                .with_context(|| format!("opening {}", self.describe()))?;
        }
        Ok(game)
    }

    /// The `position` command arguments: `startpos` or `fen <text>`, without
    /// the moves; also the record's `Opening` tag with the moves appended.
    pub fn base_command(&self) -> String {
        match &self.fen {
            None => "startpos".to_string(),
            Some(text) => format!("fen {text}"),
        }
    }

    pub fn describe(&self) -> String {
        if self.moves.is_empty() {
            self.base_command()
        } else {
            format!("{} moves {}", self.base_command(), self.moves.join(" "))
        }
    }

    /// Reads a `describe` text back (used by the records).
    pub fn parse_description(text: &str) -> Option<Opening> {
        let (base, moves) = match text.split_once(" moves ") {
            Some((b, m)) => (b, m.split_whitespace().map(str::to_string).collect()),
            None => (text, Vec::new()),
        };
        let fen = match base.trim() {
            "startpos" => None,
            other => Some(other.strip_prefix("fen ")?.trim().to_string()),
        };
        Some(Opening { fen, moves })
    }
}

/// `count` distinct random openings of `plies` plies from the start.
/// Balanced means: the game is not over and both players have the same
/// number of pieces (nobody is a capture ahead). Random play is the simplest
/// generator that covers the variant's early game without an engine.
pub fn random_openings(
    rules: &Rules,
    plies: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<Opening>> {
    let mut rng = SplitMix64::derived(seed, 1);
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    let attempts = count.saturating_mul(200).max(1000);
    for _ in 0..attempts {
        if openings.len() == count {
            break;
        }
        if let Some((opening, key)) = random_line(rules, plies, &mut rng)
            && seen.insert(key)
        {
            openings.push(opening);
        }
    }
    if openings.is_empty() {
        bail!("no balanced {plies}-ply opening found for this variant");
    }
    // Small variants have few distinct openings; reuse rather than fail.
    Ok(openings)
}

/// One random line, or None if it is not balanced.
fn random_line(rules: &Rules, plies: usize, rng: &mut SplitMix64) -> Option<(Opening, u64)> {
    let mut game = Game::new(rules.clone());
    let mut list = MoveList::new();
    let mut moves = Vec::with_capacity(plies);
    for _ in 0..plies {
        game.legal_moves(&mut list);
        if list.is_empty() {
            return None;
        }
        let mv = list.as_slice()[rng.below(list.len())];
        moves.push(rules.move_text(&mv));
        game.play(&mv);
    }
    let pos = game.position();
    let balanced = game.status().is_none() && pos.total(Player::White) == pos.total(Player::Black);
    balanced.then(|| (Opening { fen: None, moves }, pos.key()))
}

/// Reads an openings file: one opening per line, `#` comments and blank
/// lines skipped. A line is a position text, a move list from the start,
/// `<position text> moves <move list>`, or a records `Opening` tag's text
/// (`startpos moves …`, `fen <position text> moves …`). A records file
/// (starting with a `[` tag) gives the distinct `Opening` tags of its games,
/// in file order, so one run's records can seed the next run. Every opening
/// is checked by the rules.
pub fn parse_openings(rules: &Rules, text: &str) -> Result<Vec<Opening>> {
    let text = crate::textfile::without_bom(text);
    if text.trim_start().starts_with('[') {
        return openings_of_records(rules, text);
    }
    let mut openings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening =
            parse_line(rules, line).with_context(|| format!("openings line {}", index + 1))?;
        openings.push(opening);
    }
    if openings.is_empty() {
        bail!("the openings file has no opening");
    }
    Ok(openings)
}

/// The distinct `Opening` tags of a records file.
fn openings_of_records(rules: &Rules, text: &str) -> Result<Vec<Opening>> {
    let games = GameRecord::parse_all(text).context("reading the openings as records")?;
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let Some(tag) = game.tag("Opening") else {
            bail!("record {} has no Opening tag", i + 1);
        };
        if seen.insert(tag.to_string()) {
            openings.push(parse_line(rules, tag).with_context(|| format!("record {}", i + 1))?);
        }
    }
    if openings.is_empty() {
        bail!("the records file has no game");
    }
    Ok(openings)
}

fn parse_line(rules: &Rules, line: &str) -> Result<Opening> {
    if line == "startpos" || line.starts_with("startpos ") || line.starts_with("fen ") {
        let opening = Opening::parse_description(line)
            .with_context(|| format!("'{line}' is not startpos|fen <position> [moves …]"))?;
        return checked(rules, opening);
    }
    let (head, tail) = match line.split_once(" moves ") {
        Some((h, t)) => (h.trim(), t.split_whitespace().map(str::to_string).collect()),
        None => (line, Vec::new()),
    };
    let opening = if rules.parse_position(head).is_ok() {
        Opening {
            fen: Some(head.to_string()),
            moves: tail,
        }
    } else {
        let mut moves: Vec<String> = head.split_whitespace().map(str::to_string).collect();
        moves.extend(tail);
        Opening { fen: None, moves }
    };
    checked(rules, opening)
}

/// The opening, if the rules accept every move and the game is not over.
fn checked(rules: &Rules, opening: Opening) -> Result<Opening> {
    let game = opening.game(rules)?;
    if let Some(end) = game.status() {
        bail!("the opening is already finished ({end})");
    }
    Ok(opening)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 17: an openings file saved with a byte-order mark, as a move
    /// list or as records, is read like one without.
    #[test]
    fn a_byte_order_mark_does_not_spoil_the_first_opening() {
        let rules = Rules::standard();
        let plain = parse_openings(&rules, "@c3 @d3\n").unwrap();
        assert_eq!(parse_openings(&rules, "\u{feff}@c3 @d3\n").unwrap(), plain);
        let records = "[Event \"x\"]\n[Opening \"startpos moves @c3 @d3\"]\n[Result \"*\"]\n\n*\n";
        let from_records = parse_openings(&rules, records).unwrap();
        assert_eq!(
            parse_openings(&rules, &format!("\u{feff}{records}")).unwrap(),
            from_records
        );
    }

    #[test]
    fn random_openings_are_seeded_distinct_and_balanced() {
        let rules = Rules::standard();
        let a = random_openings(&rules, 6, 20, 42).unwrap();
        assert_eq!(a, random_openings(&rules, 6, 20, 42).unwrap());
        assert_ne!(a, random_openings(&rules, 6, 20, 43).unwrap());
        assert_eq!(a.len(), 20);
        for o in &a {
            let game = o.game(&rules).unwrap();
            assert_eq!(game.moves().len(), 6);
            assert!(game.status().is_none());
        }
    }

    #[test]
    fn openings_file_lines_of_every_kind() {
        let rules = Rules::standard();
        let text =
            "# comment\n\n@c3 @d4\n6/6/6/2W3/6 b 11 12 0 1\n6/6/6/2W3/6 b 11 12 0 1 moves @a1\n";
        let o = parse_openings(&rules, text).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].moves, ["@c3", "@d4"]);
        assert_eq!(o[1].fen.as_deref(), Some("6/6/6/2W3/6 b 11 12 0 1"));
        assert_eq!(o[2].moves, ["@a1"]);
        for opening in &o {
            assert_eq!(
                Opening::parse_description(&opening.describe()).as_ref(),
                Some(opening)
            );
        }
        // The records' own Opening text, and a records file itself.
        let tagged = "startpos moves @a1 @f5\nfen 6/6/6/2W3/6 b 11 12 0 1\nstartpos\n";
        let from_tags = parse_openings(&rules, tagged).unwrap();
        assert_eq!(from_tags[0].moves, ["@a1", "@f5"]);
        assert_eq!(from_tags[1], o[1]);
        assert_eq!(from_tags[2], Opening::startpos());
        let mut records = String::new();
        for opening in [&o[0], &o[0], &o[2]] {
            let mut r = GameRecord::default();
            r.set_tag("Opening", opening.describe());
            records += &r.write();
        }
        assert_eq!(
            parse_openings(&rules, &records).unwrap(),
            vec![o[0].clone(), o[2].clone()]
        );
        assert!(parse_openings(&rules, "startpos moves @a1 @a1\n").is_err());
        let err = parse_openings(&rules, "@c3 @c3\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 1"), "{err:#}");
        assert!(parse_openings(&rules, "# nothing\n").is_err());
    }
}
