//! A PGN-like text format for Yoté game records.
//!
//! ```text
//! [Event "yote match"]
//! [White "engine-a"]
//! [Black "engine-b"]
//! [Result "1-0"]
//!
//! 1. @c3 @d4 2. c3c4 d4d2xb1
//! 1-0
//! ```
//!
//! Differences from PGN, chosen to keep the reader trivial and the format
//! lossless for opaque engine data:
//! * Moves are opaque whitespace-free tokens, each optionally followed by
//!   one `{comment}` (no `}` inside); there are no variations or NAGs. The
//!   reader skips move numbers (`12.` or `12...`). When the `FEN` tag has
//!   Black to move, the first move is numbered `1...`.
//! * Tag values escape `"` and `\` with a backslash as in PGN, and also
//!   newline / carriage return as `\n` / `\r`, so that free text such as an
//!   engine's error output cannot break the one-tag-per-line structure.
//! * The `Result` tag is mandatory and must agree with the result token that
//!   ends the move text, so a truncated file is detected rather than misread.
//!
//! A game ends at its result token, not at a blank line, so files written by
//! concatenating [`GameRecord::write`] outputs, with or without blank lines
//! between them, read back the same.

use std::fmt;

/// Move text is wrapped before this many columns, as PGN export does.
const LINE_WIDTH: usize = 80;

const RESULT_TAG: &str = "Result";

/// Game result from White's (player 1's) point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: the game was not finished (aborted, crashed runner, ...).
    #[default]
    Unfinished,
}

/// One game: ordered tags, moves and result.
///
/// Invariants that [`GameRecord::write`] relies on to produce readable text:
/// tag names are unique, made of ASCII letters, digits and `_`, and are not
/// `Result` (the result lives in [`GameRecord::result`]); moves are
/// non-empty, contain no whitespace, do not start with `[`, and are neither
/// a result token nor a move number. [`GameRecord::set_tag`] enforces the
/// tag invariants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// Per move, its comment (empty for none); may be shorter than `moves`.
    pub comments: Vec<String>,
    pub result: GameResult,
}

/// Why a game record file could not be read. Line numbers are 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A `[` line that is not `[Name "value"]`.
    MalformedTag {
        line: usize,
        reason: &'static str,
    },
    /// The value's closing quote or the closing `]` is missing.
    UnterminatedTag {
        line: usize,
    },
    /// A backslash followed by something other than `"`, `\`, `n` or `r`.
    BadEscape {
        line: usize,
        found: char,
    },
    DuplicateTag {
        line: usize,
        name: String,
    },
    /// The `Result` tag's value is not `1-0`, `0-1`, `1/2-1/2` or `*`.
    BadResult {
        line: usize,
        value: String,
    },
    /// The result token ending the game at `line` has no `Result` tag.
    MissingResultTag {
        line: usize,
    },
    ResultMismatch {
        line: usize,
        tag: GameResult,
        trailer: GameResult,
    },
    /// A `{` comment is not closed before the game's end, or holds a `{`.
    UnterminatedComment {
        line: usize,
    },
    /// Something follows the result token on the same line.
    TextAfterResult {
        line: usize,
        token: String,
    },
    /// A tag line appears after move text that was never ended by a result
    /// token, which means the previous game was truncated.
    TagAfterMoves {
        line: usize,
    },
    /// The input ends inside the game that started at `line`.
    UnexpectedEof {
        line: usize,
    },
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// Parses `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn from_token(token: &str) -> Option<GameResult> {
        match token {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unfinished),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl GameRecord {
    /// `game 12` (its `Game` tag), for errors about one record.
    pub fn label(&self) -> String {
        format!("game {}", self.tag("Game").unwrap_or("without a Game tag"))
    }

    /// The value of tag `name`; `Result` reads [`GameRecord::result`].
    pub fn tag(&self, name: &str) -> Option<&str> {
        if name == RESULT_TAG {
            return Some(self.result.as_str());
        }
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Replaces the value of tag `name` in place, or appends the tag, so the
    /// order in which a runner first sets tags is the order they are written.
    /// `Result` sets [`GameRecord::result`].
    ///
    /// # Panics
    /// If `name` is not letters, digits and `_`, or if `name` is `Result` and
    /// `value` is not a result token. Both are programming errors: names are
    /// constants in the caller, and a bad name would make unreadable files.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        assert!(is_valid_tag_name(name), "invalid tag name {name:?}");
        let value = value.into();
        if name == RESULT_TAG {
            self.result = GameResult::from_token(&value)
                .unwrap_or_else(|| panic!("invalid Result tag value {value:?}"));
            return;
        }
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }

    /// Serialises the game, ending with a blank line (PGN export style) so
    /// that outputs can simply be appended to one file.
    ///
    /// `Result` is written after the other tags.
    pub fn write(&self) -> String {
        debug_assert!(
            self.tags
                .iter()
                .all(|(n, _)| is_valid_tag_name(n) && n != RESULT_TAG),
            "invalid tag names in {:?}",
            self.tags
        );
        debug_assert!(
            self.moves.iter().all(|m| is_valid_move(m)),
            "unwritable moves in {:?}",
            self.moves
        );
        let mut out = String::new();
        let result_tag = (RESULT_TAG, self.result.as_str());
        let tags = self.tags.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        for (name, value) in tags.chain(std::iter::once(result_tag)) {
            out.push('[');
            out.push_str(name);
            out.push_str(" \"");
            escape_into(value, &mut out);
            out.push_str("\"]\n");
        }
        out.push('\n');

        let mut line = String::new();
        let mut width = 0;
        let offset = usize::from(self.black_starts());
        for (i, mv) in self.moves.iter().enumerate() {
            // The move number travels with its move so that a wrapped line
            // never ends in a dangling "12.".
            let ply = i + offset;
            let mut unit = if ply % 2 == 0 {
                format!("{}. {mv}", ply / 2 + 1)
            } else if i == 0 {
                format!("{}... {mv}", ply / 2 + 1)
            } else {
                mv.clone()
            };
            if let Some(comment) = self.comments.get(i).filter(|c| !c.is_empty()) {
                unit += &format!(" {{{comment}}}");
            }
            let unit_width = unit.chars().count();
            if width > 0 && width + 1 + unit_width > LINE_WIDTH {
                out.push_str(&line);
                out.push('\n');
                line.clear();
                width = 0;
            }
            if width > 0 {
                line.push(' ');
                width += 1;
            }
            line.push_str(&unit);
            width += unit_width;
        }
        if width > 0 {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(self.result.as_str());
        out.push_str("\n\n");
        out
    }

    /// Whether the `FEN` tag has Black (player 2) to move.
    fn black_starts(&self) -> bool {
        self.tag("FEN")
            .and_then(|fen| fen.split_whitespace().nth(1))
            .is_some_and(|side| side == "b")
    }

    /// Reads every game in `text`. Blank lines are optional between games
    /// and between a game's tags and its moves; `\r\n` line ends are fine.
    pub fn parse_all(text: &str) -> Result<Vec<GameRecord>, RecordError> {
        let mut reader = RecordReader::default();
        let mut games = Vec::new();
        for raw in text.lines() {
            if let Some(game) = reader.line(raw)? {
                games.push(game);
            }
        }
        reader.finish()?;
        Ok(games)
    }
}

/// Reads records a line at a time, so that a file of any size is read in
/// constant memory: [`RecordReader::line`] returns each game as its last
/// line arrives.
#[derive(Default)]
pub struct RecordReader {
    /// Lines seen so far.
    lines: usize,
    current: Option<PartialGame>,
}

impl RecordReader {
    /// Whether a game has started and not ended yet.
    pub fn in_game(&self) -> bool {
        self.current.is_some()
    }

    /// Takes the next line (with or without its line end); the game it
    /// ends, if any.
    pub fn line(&mut self, raw: &str) -> Result<Option<GameRecord>, RecordError> {
        self.lines += 1;
        let line = self.lines;
        let raw = if line == 1 {
            crate::textfile::without_bom(raw)
        } else {
            raw
        };
        let content = raw.trim();
        if content.is_empty() {
            return Ok(None);
        }
        let game = self.current.get_or_insert_with(|| PartialGame::new(line));
        if content.starts_with('[') && game.comment.is_none() {
            if game.in_moves {
                return Err(RecordError::TagAfterMoves { line });
            }
            let (name, value) = parse_tag(content, line)?;
            game.add_tag(name, value, line)?;
            return Ok(None);
        }
        game.in_moves = true;
        let mut tokens = content.split_whitespace();
        let mut trailer = None;
        for token in tokens.by_ref() {
            if let Some(comment) = &mut game.comment {
                if token.contains('{') {
                    return Err(RecordError::UnterminatedComment { line });
                }
                match token.strip_suffix('}') {
                    Some(last) => {
                        push_word(comment, last);
                        let text = game.comment.take().expect("in a comment");
                        game.attach_comment(text);
                    }
                    None => push_word(comment, token),
                }
                continue;
            }
            if let Some(opened) = token.strip_prefix('{') {
                game.comment = Some(String::new());
                match opened.strip_suffix('}') {
                    Some(whole) => {
                        game.comment = None;
                        game.attach_comment(whole.to_string());
                    }
                    None => push_word(game.comment.as_mut().expect("just set"), opened),
                }
                continue;
            }
            if let Some(result) = GameResult::from_token(token) {
                trailer = Some(result);
                break;
            }
            if !is_move_number(token) {
                game.record.moves.push(token.to_string());
            }
        }
        let Some(result) = trailer else {
            return Ok(None);
        };
        if let Some(token) = tokens.next() {
            return Err(RecordError::TextAfterResult {
                line,
                token: token.to_string(),
            });
        }
        let game = self.current.take().expect("a game is in progress");
        if game.comment.is_some() {
            return Err(RecordError::UnterminatedComment { line });
        }
        game.finish(result, line).map(Some)
    }

    /// The end of the input: an error if it falls inside a game.
    pub fn finish(self) -> Result<(), RecordError> {
        match self.current {
            Some(game) => Err(RecordError::UnexpectedEof {
                line: game.start_line,
            }),
            None => Ok(()),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::MalformedTag { line, reason } => {
                write!(f, "line {line}: malformed tag: {reason}")
            }
            RecordError::UnterminatedTag { line } => write!(
                f,
                "line {line}: unterminated tag (expected closing '\"' and ']')"
            ),
            RecordError::BadEscape { line, found } => write!(
                f,
                "line {line}: bad escape '\\{found}' in tag value \
                 (only \\\", \\\\, \\n and \\r are allowed)"
            ),
            RecordError::DuplicateTag { line, name } => {
                write!(f, "line {line}: duplicate tag {name:?}")
            }
            RecordError::BadResult { line, value } => write!(
                f,
                "line {line}: bad result {value:?} (expected 1-0, 0-1, 1/2-1/2 or *)"
            ),
            RecordError::MissingResultTag { line } => write!(
                f,
                "line {line}: game ends without a Result tag in its header"
            ),
            RecordError::ResultMismatch { line, tag, trailer } => write!(
                f,
                "line {line}: result {trailer} at the end of the moves \
                 contradicts Result tag {tag}"
            ),
            RecordError::UnterminatedComment { line } => {
                write!(
                    f,
                    "line {line}: a {{comment}} is not closed (or holds a '{{')"
                )
            }
            RecordError::TextAfterResult { line, token } => write!(
                f,
                "line {line}: unexpected {token:?} after the result that ends the game"
            ),
            RecordError::TagAfterMoves { line } => write!(
                f,
                "line {line}: tag found inside move text; the previous game \
                 is missing its final result (1-0, 0-1, 1/2-1/2 or *)"
            ),
            RecordError::UnexpectedEof { line } => write!(
                f,
                "line {line}: input ends before this game's final result \
                 (1-0, 0-1, 1/2-1/2 or *)"
            ),
        }
    }
}

impl std::error::Error for RecordError {}

/// A game being read: everything seen so far plus where it started.
struct PartialGame {
    start_line: usize,
    record: GameRecord,
    result_tag: Option<GameResult>,
    in_moves: bool,
    /// The text of a `{` comment still open.
    comment: Option<String>,
}

fn push_word(text: &mut String, word: &str) {
    if !text.is_empty() && !word.is_empty() {
        text.push(' ');
    }
    text.push_str(word);
}

impl PartialGame {
    fn new(start_line: usize) -> PartialGame {
        PartialGame {
            start_line,
            record: GameRecord::default(),
            result_tag: None,
            in_moves: false,
            comment: None,
        }
    }

    /// Gives the last move its comment (a comment before any move is
    /// dropped, as nothing can carry it).
    fn attach_comment(&mut self, text: String) {
        let moves = self.record.moves.len();
        if moves > 0 {
            self.record.comments.resize(moves, String::new());
            self.record.comments[moves - 1] = text;
        }
    }

    fn add_tag(&mut self, name: String, value: String, line: usize) -> Result<(), RecordError> {
        let duplicate = if name == RESULT_TAG {
            self.result_tag.is_some()
        } else {
            self.record.tags.iter().any(|(n, _)| *n == name)
        };
        if duplicate {
            return Err(RecordError::DuplicateTag { line, name });
        }
        if name == RESULT_TAG {
            let result =
                GameResult::from_token(&value).ok_or(RecordError::BadResult { line, value })?;
            self.result_tag = Some(result);
        } else {
            self.record.tags.push((name, value));
        }
        Ok(())
    }

    fn finish(mut self, trailer: GameResult, line: usize) -> Result<GameRecord, RecordError> {
        match self.result_tag {
            None => Err(RecordError::MissingResultTag { line }),
            Some(tag) if tag != trailer => Err(RecordError::ResultMismatch { line, tag, trailer }),
            Some(_) => {
                self.record.result = trailer;
                Ok(self.record)
            }
        }
    }
}

/// Parses a trimmed line starting with `[` into (name, unescaped value).
fn parse_tag(content: &str, line: usize) -> Result<(String, String), RecordError> {
    let malformed = |reason| RecordError::MalformedTag { line, reason };
    let inner = &content[1..];
    let name_end = inner
        .find(char::is_whitespace)
        .ok_or(malformed("expected [Name \"value\"]"))?;
    let name = &inner[..name_end];
    if !is_valid_tag_name(name) {
        return Err(malformed("tag name must be letters, digits or '_'"));
    }
    let quoted = inner[name_end..]
        .trim_start()
        .strip_prefix('"')
        .ok_or(malformed("tag value must be in double quotes"))?;

    let mut value = String::new();
    let mut chars = quoted.char_indices();
    let after_value = loop {
        match chars.next() {
            None => return Err(RecordError::UnterminatedTag { line }),
            Some((i, '"')) => break &quoted[i + 1..],
            Some((_, '\\')) => match chars.next() {
                None => return Err(RecordError::UnterminatedTag { line }),
                Some((_, '"')) => value.push('"'),
                Some((_, '\\')) => value.push('\\'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, 'r')) => value.push('\r'),
                Some((_, found)) => return Err(RecordError::BadEscape { line, found }),
            },
            Some((_, c)) => value.push(c),
        }
    };
    match after_value.trim_start().strip_prefix(']') {
        Some("") => Ok((name.to_string(), value)),
        Some(_) => Err(malformed("unexpected text after ']'")),
        None if after_value.trim().is_empty() => Err(RecordError::UnterminatedTag { line }),
        None => Err(malformed("unexpected text after the tag value")),
    }
}

fn escape_into(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
}

fn is_valid_tag_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `12.` or `12...`: digits followed by at least one dot.
pub fn is_move_number(token: &str) -> bool {
    let dots = token.trim_start_matches(|c: char| c.is_ascii_digit());
    dots.len() < token.len() && !dots.is_empty() && dots.chars().all(|c| c == '.')
}

fn is_valid_move(token: &str) -> bool {
    !token.is_empty()
        && !token.contains(char::is_whitespace)
        && !token.starts_with('[')
        && GameResult::from_token(token).is_none()
        && !is_move_number(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(moves: &[&str], result: GameResult) -> GameRecord {
        let mut r = GameRecord {
            result,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ..GameRecord::default()
        };
        r.set_tag("Event", "yote match");
        r.set_tag("White", "engine-a");
        r.set_tag("Black", "engine-b");
        r.set_tag("Round", "17");
        r.set_tag("Variant", "rows=5,cols=6,pieces=12,removal=board");
        r.set_tag("TimeControl", "1+0.01");
        r.set_tag("Opening", "6/6/6/6/6 w 12 12 0 1");
        r.set_tag("OpeningMoves", "@c3 @d4");
        r.set_tag("Termination", "illegal move by engine-b: c3c5");
        r
    }

    fn long_game() -> GameRecord {
        let moves: Vec<String> = (0..75)
            .map(|i| match i % 3 {
                0 => format!("@{}{}", (b'a' + (i % 6) as u8) as char, i % 5 + 1),
                1 => "c3c4".to_string(),
                _ => "c3c5e5xd4x@".to_string(),
            })
            .collect();
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        record(&refs, GameResult::Draw)
    }

    fn parse_err(text: &str) -> RecordError {
        GameRecord::parse_all(text).expect_err("text should be rejected")
    }

    #[test]
    fn writes_expected_text() {
        let mut r = GameRecord {
            moves: vec!["@c3".into(), "@d4".into(), "c3c4".into()],
            result: GameResult::WhiteWins,
            ..GameRecord::default()
        };
        r.set_tag("Event", "yote match");
        r.set_tag("Termination", "illegal move by engine-b: c3c5");
        assert_eq!(
            r.write(),
            "[Event \"yote match\"]\n\
             [Termination \"illegal move by engine-b: c3c5\"]\n\
             [Result \"1-0\"]\n\
             \n\
             1. @c3 @d4 2. c3c4\n\
             1-0\n\
             \n"
        );
    }

    #[test]
    fn round_trips_single_game() {
        let r = record(&["@c3", "@d4", "c3c4", "d4d2xb1"], GameResult::WhiteWins);
        assert_eq!(GameRecord::parse_all(&r.write()).unwrap(), vec![r]);
    }

    #[test]
    fn round_trips_odd_and_empty_move_lists() {
        for moves in [&[][..], &["@a1"][..], &["@a1", "@b2", "a1a2"][..]] {
            let r = record(moves, GameResult::Unfinished);
            assert_eq!(GameRecord::parse_all(&r.write()).unwrap(), vec![r]);
        }
        let bare = GameRecord::default();
        assert_eq!(GameRecord::parse_all(&bare.write()).unwrap(), vec![bare]);
    }

    #[test]
    fn round_trips_many_games_with_and_without_separators() {
        let games = vec![
            long_game(),
            record(&["@c3"], GameResult::BlackWins),
            record(&[], GameResult::Unfinished),
        ];
        let appended: String = games.iter().map(GameRecord::write).collect();
        assert_eq!(GameRecord::parse_all(&appended).unwrap(), games);
        let packed = appended.replace("\n\n", "\n");
        assert_eq!(GameRecord::parse_all(&packed).unwrap(), games);
        let crlf = appended.replace('\n', "\r\n");
        assert_eq!(GameRecord::parse_all(&crlf).unwrap(), games);
    }

    #[test]
    fn wraps_move_text_without_splitting_numbers_from_moves() {
        let text = long_game().write();
        let move_lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('['))
            .collect();
        assert!(move_lines.len() > 5, "{text}");
        for l in &move_lines {
            assert!(l.chars().count() <= LINE_WIDTH, "too long: {l:?}");
            assert!(!l.ends_with('.'), "dangling move number: {l:?}");
        }
        // The first move of each full move gets the number, counting from 1.
        assert!(move_lines[0].starts_with("1. @a1 c3c4 2. c3c5e5xd4x@ @d4 3. "));
        let numbers: Vec<&str> = move_lines
            .iter()
            .flat_map(|l| l.split_whitespace())
            .filter(|t| t.ends_with('.'))
            .collect();
        let expected: Vec<String> = (1..=38).map(|n| format!("{n}.")).collect();
        assert_eq!(numbers, expected, "75 moves need numbers 1..=38");
    }

    #[test]
    fn comments_round_trip_and_black_starts_at_one_ellipsis() {
        let mut r = record(&["@c3", "@d4", "c3c4"], GameResult::Draw);
        r.comments = vec![
            String::new(),
            "+0.35/7 0.120s".into(),
            "-1.00/2 0.004s".into(),
        ];
        r.set_tag("FEN", "6/6/6/2W3/6 b 11 12 0 1");
        let text = r.write();
        assert!(
            text.contains("1... @c3 2. @d4 {+0.35/7 0.120s} c3c4 {-1.00/2 0.004s}\n"),
            "{text}"
        );
        assert_eq!(GameRecord::parse_all(&text).unwrap(), vec![r]);
        let spread = "[Result \"*\"]\n1. @a1 { a\nlong   one } @b2 {x} *\n";
        let game = &GameRecord::parse_all(spread).unwrap()[0];
        assert_eq!(game.moves, ["@a1", "@b2"]);
        assert_eq!(game.comments, ["a long one", "x"]);
        // A result inside a comment is comment text: the game never ends.
        assert_eq!(
            parse_err("[Result \"*\"]\n1. @a1 {open *\n"),
            RecordError::UnexpectedEof { line: 1 }
        );
        assert_eq!(
            parse_err("[Result \"*\"]\n1. @a1 {a {b} *\n"),
            RecordError::UnterminatedComment { line: 2 }
        );
    }

    #[test]
    fn escapes_tag_values() {
        let mut r = GameRecord::default();
        let nasty = "say \"hi\" C:\\dir\\ [x] \\\"\nline2\r";
        r.set_tag("Termination", nasty);
        let text = r.write();
        assert!(
            text.starts_with(
                "[Termination \"say \\\"hi\\\" C:\\\\dir\\\\ [x] \\\\\\\"\\nline2\\r\"]\n"
            ),
            "{text}"
        );
        let back = GameRecord::parse_all(&text).unwrap();
        assert_eq!(back[0].tag("Termination"), Some(nasty));
    }

    #[test]
    fn reads_hand_written_file() {
        let text = "\u{feff}[Event \"yote match\"]\n\
                    [White \"engine-a\"]\n\
                    [Result   \"1/2-1/2\"]  \n\
                    1. @c3 @d4 2. c3c4\n\
                    2... d4d2xb1 17. b1b2 1/2-1/2\n\
                    [Event \"next\"] \n[Result \"*\"]\n*\n";
        let games = GameRecord::parse_all(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, ["@c3", "@d4", "c3c4", "d4d2xb1", "b1b2"]);
        assert_eq!(games[0].result, GameResult::Draw);
        assert_eq!(games[0].tag("White"), Some("engine-a"));
        assert_eq!(games[0].tag("Result"), Some("1/2-1/2"));
        assert_eq!(games[0].tag("Black"), None);
        assert_eq!(games[1].tag("Event"), Some("next"));
        assert!(games[1].moves.is_empty());
        assert_eq!(GameRecord::parse_all("\n \n").unwrap(), vec![]);
    }

    #[test]
    fn set_tag_replaces_in_place_and_result_maps_to_field() {
        let mut r = GameRecord::default();
        r.set_tag("A", "1");
        r.set_tag("B", "2");
        r.set_tag("A", "3");
        assert_eq!(
            r.tags,
            vec![("A".to_string(), "3".to_string()), ("B".into(), "2".into())]
        );
        r.set_tag("Result", "0-1");
        assert_eq!(r.result, GameResult::BlackWins);
        assert_eq!(r.tags.len(), 2);
    }

    #[test]
    #[should_panic(expected = "invalid tag name")]
    fn set_tag_rejects_unwritable_names() {
        GameRecord::default().set_tag("Bad Name", "x");
    }

    #[test]
    fn result_tokens_round_trip() {
        for r in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
            GameResult::Unfinished,
        ] {
            assert_eq!(GameResult::from_token(r.as_str()), Some(r));
        }
        assert_eq!(GameResult::from_token("1-1"), None);
    }

    #[test]
    fn tag_errors() {
        assert_eq!(
            parse_err("[Event \"x\"]\n[White \"abc]\n"),
            RecordError::UnterminatedTag { line: 2 }
        );
        assert_eq!(
            parse_err("[Event \"x\"\n"),
            RecordError::UnterminatedTag { line: 1 }
        );
        assert_eq!(
            parse_err("[Event \"a\\tb\"]\n"),
            RecordError::BadEscape {
                line: 1,
                found: 't'
            }
        );
        assert!(matches!(
            parse_err("[Event]\n"),
            RecordError::MalformedTag { line: 1, .. }
        ));
        assert!(matches!(
            parse_err("[Event x]\n"),
            RecordError::MalformedTag { line: 1, .. }
        ));
        assert!(matches!(
            parse_err("[Ev-ent \"x\"]\n"),
            RecordError::MalformedTag { line: 1, .. }
        ));
        assert!(matches!(
            parse_err("[Event \"x\"] junk\n"),
            RecordError::MalformedTag { line: 1, .. }
        ));
        assert_eq!(
            parse_err("[Event \"x\"]\n\n[Event \"y\"]\n"),
            RecordError::DuplicateTag {
                line: 3,
                name: "Event".into()
            }
        );
        assert_eq!(
            parse_err("[Result \"2-0\"]\n"),
            RecordError::BadResult {
                line: 1,
                value: "2-0".into()
            }
        );
    }

    #[test]
    fn structure_errors() {
        assert_eq!(
            parse_err("[Event \"x\"]\n\n1. @a1 @b2\n1-0\n"),
            RecordError::MissingResultTag { line: 4 }
        );
        assert_eq!(
            parse_err("[Result \"1-0\"]\n\n1. @a1 0-1\n"),
            RecordError::ResultMismatch {
                line: 3,
                tag: GameResult::WhiteWins,
                trailer: GameResult::BlackWins
            }
        );
        assert_eq!(
            parse_err("[Result \"1-0\"]\n1. @a1 1-0 @b2\n"),
            RecordError::TextAfterResult {
                line: 2,
                token: "@b2".into()
            }
        );
        assert_eq!(
            parse_err("[Result \"1-0\"]\n1. @a1\n\n[Result \"0-1\"]\n0-1\n"),
            RecordError::TagAfterMoves { line: 4 }
        );
        assert_eq!(
            parse_err("[Result \"1-0\"]\n*\n\n\n[Result \"0-1\"]\n1. @a1\n"),
            RecordError::ResultMismatch {
                line: 2,
                tag: GameResult::WhiteWins,
                trailer: GameResult::Unfinished
            }
        );
        assert_eq!(
            parse_err("[Result \"1-0\"]\n*\n\n\n[Result \"0-1\"]\n1. @a1\n").to_string(),
            "line 2: result * at the end of the moves contradicts Result tag 1-0"
        );
        assert_eq!(
            parse_err("[Result \"*\"]\n*\n\n\n[Result \"0-1\"]\n1. @a1\n"),
            RecordError::UnexpectedEof { line: 5 }
        );
    }

    #[test]
    fn error_messages_name_the_line_and_problem() {
        let cases = [
            (RecordError::UnterminatedTag { line: 7 }, "unterminated tag"),
            (
                RecordError::BadResult {
                    line: 7,
                    value: "2-0".into(),
                },
                "bad result \"2-0\"",
            ),
            (
                RecordError::MissingResultTag { line: 7 },
                "without a Result tag",
            ),
            (
                RecordError::UnexpectedEof { line: 7 },
                "input ends before this game's final result",
            ),
            (
                RecordError::BadEscape {
                    line: 7,
                    found: 'q',
                },
                "bad escape '\\q'",
            ),
        ];
        for (err, fragment) in cases {
            let msg = err.to_string();
            assert!(msg.starts_with("line 7: "), "{msg}");
            assert!(msg.contains(fragment), "{msg}");
        }
    }

    #[test]
    fn move_number_recognition() {
        for t in ["1.", "12.", "3..."] {
            assert!(is_move_number(t), "{t}");
        }
        for t in [".", "1", "a1.", "1.a", "@c3"] {
            assert!(!is_move_number(t), "{t}");
        }
    }
}
