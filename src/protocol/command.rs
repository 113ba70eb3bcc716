//! Parsing one line of the UCI / UGI text protocol into a typed [`Command`].
//!
//! The protocols leave many edge cases open; this module settles them as
//! follows so the engine behaves predictably with sloppy GUIs and with garbage:
//!
//! * **Never panics**, whatever the input. The caller decodes bytes lossily,
//!   so the line may hold replacement characters, NULs or control codes.
//! * **Case-sensitive**, as UCI is: `uci` is a command, `UCI` is
//!   [`ParseError::Unknown`]. Keywords inside commands (`startpos`, `wtime`,
//!   `name`, ...) are case-sensitive too.
//! * **Tokens** are separated by any run of Unicode whitespace (spaces, tabs,
//!   a trailing `\r` from Windows GUIs). A leading byte-order mark, which
//!   some Windows GUIs send, is dropped by the reader (`input`) before any
//!   stage sees the line; here it is part of the first token.
//! * **Strict about leftovers**: tokens after a complete command (`isready
//!   now`) are [`ParseError::UnknownToken`]. UCI suggests skipping unknown
//!   words, but silently guessing hides GUI bugs; the caller may still choose
//!   to ignore the error.
//! * **Times** (`wtime`/`p1time`, `winc`/`p1inc`, ..., `movetime`): negative
//!   values clamp to 0 (some GUIs send negative remaining time after a flag
//!   fall), and values beyond `u64::MAX` saturate, since any such time means
//!   "effectively unlimited".
//! * **`nodes`** saturates at `u64::MAX` for the same reason, but a negative
//!   node count is [`ParseError::BadNumber`]: there is no sensible clamp.
//! * **Small counts** (`depth`, `movestogo`, `mate`, `perft`, `bench` depth)
//!   are `u32`; a value that does not fit is [`ParseError::NumberTooLarge`]
//!   naming the token, and a negative one is [`ParseError::BadNumber`].
//!   Zero is accepted: what a zero depth means is the engine's decision.
//! * Numbers are plain ASCII decimal with an optional sign: `1e3`, `0x10`,
//!   `10.5` and `10ms` are [`ParseError::BadNumber`].
//! * In `go`, repeating a keyword keeps the last value, a keyword followed by
//!   another keyword (`go depth infinite`) is [`ParseError::MissingValue`],
//!   `searchmoves` consumes tokens until the next `go` keyword (and needs at
//!   least one move), and any other token is [`ParseError::UnknownToken`].
//! * `position` needs `startpos` or `fen`; `position fen` with no FEN tokens
//!   before `moves` is an error; `position startpos moves` with no moves is
//!   fine; a `moves` keyword repeated in the list continues it. Moves and FENs are not validated here: that needs the game rules.
//! * `setoption name <name> [value <value>]`: the name is every token up to
//!   the first `value` token, re-joined with single spaces, so an option name
//!   cannot contain the word `value`. The value is the rest of the line
//!   *verbatim* (only trimmed), so string options such as paths keep their
//!   inner spacing. `value` followed by nothing yields `Some("")`, because
//!   GUIs set an empty string option that way.

use std::fmt;

/// One parsed input line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Ugi,
    IsReady,
    /// `ucinewgame` or `uginewgame`.
    NewGame,
    /// `setoption name <name> [value <value>]`; see the module docs for how
    /// name and value are delimited. Matching the name is the caller's job.
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        base: PositionBase,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    Query(Query),
    /// `d`: print the board.
    Display,
    Eval,
    /// `moves`: list the legal moves.
    Moves,
    Bench {
        depth: Option<u32>,
    },
    Perft {
        depth: u32,
    },
    /// A blank (or whitespace-only) line, which the engine ignores silently.
    Empty,
}

/// Where a `position` command starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionBase {
    StartPos,
    /// The FEN tokens joined by single spaces; not validated.
    Fen(String),
}

/// The UGI `query` sub-commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    GameOver,
    P1Turn,
    Result,
    Fen,
    /// `query moves`: the legal moves on the `response` line.
    Moves,
    /// `query islegal <move>`; the move is not validated here.
    IsLegal(String),
}

/// Parameters of `go`. UCI's `wtime`/`btime`/`winc`/`binc` are stored as
/// `p1*`/`p2*` because white moves first and is therefore player 1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    pub p1time: Option<u64>,
    pub p2time: Option<u64>,
    pub p1inc: Option<u64>,
    pub p2inc: Option<u64>,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    /// `go perft <depth>`, which some GUIs and test scripts use instead of
    /// the top-level `perft` command.
    pub perft: Option<u32>,
}

/// Why a line could not be parsed. `Display` gives a single line (control
/// characters in tokens are escaped, very long tokens are shortened) so it
/// can be echoed as an `info string` without breaking the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The first word is not a command.
    Unknown(String),
    /// A keyword that takes a value had none (end of line, or another keyword).
    MissingValue {
        command: &'static str,
        param: &'static str,
    },
    /// The command needs one of a fixed set of keywords next, and got nothing.
    Expected {
        command: &'static str,
        expected: &'static str,
    },
    /// A token is not a number the parameter accepts.
    BadNumber { param: &'static str, token: String },
    /// A well-formed number that does not fit the parameter's type.
    NumberTooLarge {
        param: &'static str,
        token: String,
        max: u64,
    },
    /// A token the command does not understand at that place.
    UnknownToken {
        command: &'static str,
        token: String,
    },
    /// An option name or value holding a control character (a newline
    /// smuggled in by a manager would otherwise become a second command
    /// in some other engine; here it is refused the same way everywhere).
    ControlCharacter {
        part: &'static str,
        found: char,
        text: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(word) => write!(f, "unknown command {}", Shown(word)),
            ParseError::MissingValue { command, param } => {
                write!(f, "{command}: {param} needs a value")
            }
            ParseError::Expected { command, expected } => {
                write!(f, "{command}: expected {expected}")
            }
            ParseError::BadNumber { param, token } => {
                write!(f, "{param}: {} is not a valid number", Shown(token))
            }
            ParseError::NumberTooLarge { param, token, max } => {
                write!(f, "{param}: {} is too large (max {max})", Shown(token))
            }
            ParseError::UnknownToken { command, token } => {
                write!(f, "{command}: unexpected token {}", Shown(token))
            }
            ParseError::ControlCharacter { part, found, text } => write!(
                f,
                "setoption: the option {part} {} holds the control character U+{:04X}; \
                 option names and values may not",
                Shown(text),
                u32::from(*found)
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// Quotes and escapes a token for an error message, shortening it so a
/// multi-megabyte garbage line cannot flood the GUI's log. Every protocol
/// error message that repeats client text goes through it.
pub(crate) struct Shown<'a>(pub(crate) &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX_CHARS: usize = 40;
        match self.0.char_indices().nth(MAX_CHARS) {
            Some((cut, _)) => write!(f, "{:?}...", &self.0[..cut]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// A token plus the byte offset just past it, so `setoption` can take the
/// rest of the line verbatim.
#[derive(Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    end: usize,
}

/// Same splitting rule as `str::split_whitespace`, but remembering offsets.
fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push(Token {
                    text: &line[s..i],
                    end: i,
                });
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(Token {
            text: &line[s..],
            end: line.len(),
        });
    }
    out
}

/// Parses one protocol line. See the module documentation for the rules.
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let toks = tokenize(line);
    let Some(first) = toks.first() else {
        return Ok(Command::Empty);
    };
    let rest = &toks[1..];
    let simple = |cmd: Command, name: &'static str| no_more(name, rest).map(|()| cmd);
    match first.text {
        "uci" => simple(Command::Uci, "uci"),
        "ugi" => simple(Command::Ugi, "ugi"),
        "isready" => simple(Command::IsReady, "isready"),
        "ucinewgame" => simple(Command::NewGame, "ucinewgame"),
        "uginewgame" => simple(Command::NewGame, "uginewgame"),
        "stop" => simple(Command::Stop, "stop"),
        "ponderhit" => simple(Command::PonderHit, "ponderhit"),
        "quit" => simple(Command::Quit, "quit"),
        "d" => simple(Command::Display, "d"),
        "eval" => simple(Command::Eval, "eval"),
        "moves" => simple(Command::Moves, "moves"),
        "setoption" => parse_setoption(line, rest),
        "position" => parse_position(rest),
        "go" => parse_go(rest).map(Command::Go),
        "query" => parse_query(rest).map(Command::Query),
        "bench" => parse_bench(rest),
        "perft" => parse_perft(rest),
        other => Err(ParseError::Unknown(other.to_string())),
    }
}

fn no_more(command: &'static str, rest: &[Token<'_>]) -> Result<(), ParseError> {
    match rest.first() {
        None => Ok(()),
        Some(t) => Err(ParseError::UnknownToken {
            command,
            token: t.text.to_string(),
        }),
    }
}

fn parse_setoption(line: &str, rest: &[Token<'_>]) -> Result<Command, ParseError> {
    const CMD: &str = "setoption";
    match rest.first() {
        None => {
            return Err(ParseError::Expected {
                command: CMD,
                expected: "\"name\"",
            });
        }
        Some(t) if t.text != "name" => {
            return Err(ParseError::UnknownToken {
                command: CMD,
                token: t.text.to_string(),
            });
        }
        Some(_) => {}
    }
    let after_name = &rest[1..];
    let value_at = after_name.iter().position(|t| t.text == "value");
    let name_toks = &after_name[..value_at.unwrap_or(after_name.len())];
    if name_toks.is_empty() {
        return Err(ParseError::MissingValue {
            command: CMD,
            param: "name",
        });
    }
    // Control characters are looked for in the raw text, before it is
    // split or trimmed: some (U+0085, U+001C–U+001F) are also Unicode
    // whitespace, and would otherwise vanish as separators or be trimmed
    // off the value. Only the line's own end (`\r\n`) is not part of it.
    let line_end = line.trim_end_matches(['\r', '\n']).len();
    let name_start = rest[0].end;
    let (name_end, value) = match value_at {
        Some(i) => {
            let keyword = after_name[i];
            let value_start = keyword.end.min(line_end);
            (
                keyword.end - keyword.text.len(),
                Some(&line[value_start..line_end]),
            )
        }
        None => (line_end, None),
    };
    let spaces = [' ', '\t'];
    refuse_control_characters("name", line[name_start..name_end].trim_matches(spaces))?;
    if let Some(value) = value {
        refuse_control_characters("value", value.trim_matches(spaces))?;
    }
    let name = name_toks
        .iter()
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join(" ");
    let value = value.map(|v| v.trim().to_string());
    Ok(Command::SetOption { name, value })
}

/// Control characters have no place in an option (a tab, which is
/// whitespace, may separate words of a value).
fn refuse_control_characters(part: &'static str, text: &str) -> Result<(), ParseError> {
    match text.chars().find(|&c| c.is_control() && c != '\t') {
        Some(found) => Err(ParseError::ControlCharacter {
            part,
            found,
            text: text.to_string(),
        }),
        None => Ok(()),
    }
}

fn parse_position(rest: &[Token<'_>]) -> Result<Command, ParseError> {
    const CMD: &str = "position";
    let (base, after_base) = match rest.first().map(|t| t.text) {
        None => {
            return Err(ParseError::Expected {
                command: CMD,
                expected: "\"startpos\" or \"fen\"",
            });
        }
        Some("startpos") => (PositionBase::StartPos, &rest[1..]),
        Some("fen") => {
            let fen_toks = &rest[1..];
            let len = fen_toks
                .iter()
                .position(|t| t.text == "moves")
                .unwrap_or(fen_toks.len());
            if len == 0 {
                return Err(ParseError::MissingValue {
                    command: CMD,
                    param: "fen",
                });
            }
            let fen = fen_toks[..len]
                .iter()
                .map(|t| t.text)
                .collect::<Vec<_>>()
                .join(" ");
            (PositionBase::Fen(fen), &fen_toks[len..])
        }
        Some(other) => {
            return Err(ParseError::UnknownToken {
                command: CMD,
                token: other.to_string(),
            });
        }
    };
    let moves = match after_base.split_first() {
        None => Vec::new(),
        // A repeated `moves` continues the list: a manager that appends its
        // own moves to an opening text ending in `moves …` sends it twice.
        Some((kw, moves)) if kw.text == "moves" => moves
            .iter()
            .filter(|t| t.text != "moves")
            .map(|t| t.text.to_string())
            .collect(),
        Some((other, _)) => {
            return Err(ParseError::UnknownToken {
                command: CMD,
                token: other.text.to_string(),
            });
        }
    };
    Ok(Command::Position { base, moves })
}

/// Every keyword `go` understands; also the terminators of `searchmoves`.
const GO_KEYWORDS: [&str; 17] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

fn parse_go(rest: &[Token<'_>]) -> Result<GoParams, ParseError> {
    const CMD: &str = "go";
    let mut p = GoParams::default();
    let mut i = 0;
    while let Some(tok) = rest.get(i) {
        i += 1;
        // Map to the 'static keyword so errors can name it without allocating.
        let Some(&kw) = GO_KEYWORDS.iter().find(|k| **k == tok.text) else {
            return Err(ParseError::UnknownToken {
                command: CMD,
                token: tok.text.to_string(),
            });
        };
        match kw {
            "infinite" => p.infinite = true,
            "ponder" => p.ponder = true,
            "searchmoves" => {
                let n = rest[i..]
                    .iter()
                    .position(|t| GO_KEYWORDS.contains(&t.text))
                    .unwrap_or(rest.len() - i);
                if n == 0 {
                    return Err(ParseError::MissingValue {
                        command: CMD,
                        param: kw,
                    });
                }
                p.searchmoves = rest[i..i + n].iter().map(|t| t.text.to_string()).collect();
                i += n;
            }
            _ => {
                let value = match rest.get(i) {
                    Some(v) if !GO_KEYWORDS.contains(&v.text) => v.text,
                    _ => {
                        return Err(ParseError::MissingValue {
                            command: CMD,
                            param: kw,
                        });
                    }
                };
                i += 1;
                match kw {
                    "wtime" | "p1time" => p.p1time = Some(time_value(kw, value)?),
                    "btime" | "p2time" => p.p2time = Some(time_value(kw, value)?),
                    "winc" | "p1inc" => p.p1inc = Some(time_value(kw, value)?),
                    "binc" | "p2inc" => p.p2inc = Some(time_value(kw, value)?),
                    "movetime" => p.movetime = Some(time_value(kw, value)?),
                    "nodes" => p.nodes = Some(count_value(kw, value)?),
                    "movestogo" => p.movestogo = Some(u32_value(kw, value)?),
                    "depth" => p.depth = Some(u32_value(kw, value)?),
                    "mate" => p.mate = Some(u32_value(kw, value)?),
                    "perft" => p.perft = Some(u32_value(kw, value)?),
                    // GO_KEYWORDS and this match are kept in step; an
                    // unmatched keyword would be a bug here, not bad input,
                    // but reporting it beats panicking on a user's line.
                    _ => {
                        return Err(ParseError::UnknownToken {
                            command: CMD,
                            token: kw.to_string(),
                        });
                    }
                }
            }
        }
    }
    Ok(p)
}

fn parse_query(rest: &[Token<'_>]) -> Result<Query, ParseError> {
    const CMD: &str = "query";
    let Some((what, rest)) = rest.split_first() else {
        return Err(ParseError::Expected {
            command: CMD,
            expected: "gameover, p1turn, result, fen, moves or islegal",
        });
    };
    let q = match what.text {
        "gameover" => Query::GameOver,
        "p1turn" => Query::P1Turn,
        "result" => Query::Result,
        "fen" => Query::Fen,
        "moves" => Query::Moves,
        "islegal" => {
            let Some((mv, rest)) = rest.split_first() else {
                return Err(ParseError::MissingValue {
                    command: CMD,
                    param: "islegal",
                });
            };
            no_more(CMD, rest)?;
            return Ok(Query::IsLegal(mv.text.to_string()));
        }
        other => {
            return Err(ParseError::UnknownToken {
                command: CMD,
                token: other.to_string(),
            });
        }
    };
    no_more(CMD, rest)?;
    Ok(q)
}

fn parse_bench(rest: &[Token<'_>]) -> Result<Command, ParseError> {
    let Some((d, rest)) = rest.split_first() else {
        return Ok(Command::Bench { depth: None });
    };
    let depth = u32_value("depth", d.text)?;
    no_more("bench", rest)?;
    Ok(Command::Bench { depth: Some(depth) })
}

fn parse_perft(rest: &[Token<'_>]) -> Result<Command, ParseError> {
    let Some((d, rest)) = rest.split_first() else {
        return Err(ParseError::MissingValue {
            command: "perft",
            param: "depth",
        });
    };
    let depth = u32_value("depth", d.text)?;
    no_more("perft", rest)?;
    Ok(Command::Perft { depth })
}

/// Splits an optionally signed ASCII decimal into (is_negative, magnitude),
/// saturating the magnitude at `u64::MAX` so callers choose their own policy
/// for oversized values. `None` if it is not a number at all.
fn scan_int(tok: &str) -> Option<(bool, u64)> {
    let (negative, digits) = match tok.as_bytes().first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    Some((negative, magnitude))
}

fn bad(param: &'static str, token: &str) -> ParseError {
    ParseError::BadNumber {
        param,
        token: token.to_string(),
    }
}

/// Milliseconds: negative clamps to 0, oversized saturates.
fn time_value(param: &'static str, tok: &str) -> Result<u64, ParseError> {
    match scan_int(tok) {
        Some((true, _)) => Ok(0),
        Some((false, m)) => Ok(m),
        None => Err(bad(param, tok)),
    }
}

/// Node counts: oversized saturates, negative is an error.
fn count_value(param: &'static str, tok: &str) -> Result<u64, ParseError> {
    match scan_int(tok) {
        Some((false, m)) => Ok(m),
        // "-0" is harmless, but rejecting every sign keeps the rule simple.
        _ => Err(bad(param, tok)),
    }
}

/// Small counts: must fit in `u32`, negative is an error.
fn u32_value(param: &'static str, tok: &str) -> Result<u32, ParseError> {
    match scan_int(tok) {
        Some((false, m)) => u32::try_from(m).map_err(|_| ParseError::NumberTooLarge {
            param,
            token: tok.to_string(),
            max: u64::from(u32::MAX),
        }),
        _ => Err(bad(param, tok)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> GoParams {
        match parse(line) {
            Ok(Command::Go(p)) => p,
            other => panic!("{line:?} parsed as {other:?}"),
        }
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn simple_commands() {
        let cases = [
            ("uci", Command::Uci),
            ("ugi", Command::Ugi),
            ("isready", Command::IsReady),
            ("ucinewgame", Command::NewGame),
            ("uginewgame", Command::NewGame),
            ("stop", Command::Stop),
            ("ponderhit", Command::PonderHit),
            ("quit", Command::Quit),
            ("d", Command::Display),
            ("eval", Command::Eval),
            ("moves", Command::Moves),
            ("bench", Command::Bench { depth: None }),
        ];
        for (line, want) in cases {
            assert_eq!(parse(line), Ok(want), "{line:?}");
        }
    }

    #[test]
    fn whitespace_is_flexible() {
        assert_eq!(parse("  \t isready \r\n"), Ok(Command::IsReady));
        // The reader drops a byte-order mark; one that reached the parser
        // would be part of the word, as the session sees it too.
        assert_eq!(
            parse("\u{feff}uci"),
            Err(ParseError::Unknown("\u{feff}uci".into()))
        );
        assert_eq!(parse("go\t\tdepth   7"), parse("go depth 7"));
        assert_eq!(go("go\t\tdepth   7").depth, Some(7));
    }

    #[test]
    fn empty_lines() {
        for line in ["", " ", "\t", "\r\n", "   \t  \u{3000} "] {
            assert_eq!(parse(line), Ok(Command::Empty), "{line:?}");
        }
    }

    #[test]
    fn case_sensitive() {
        assert_eq!(parse("UCI"), Err(ParseError::Unknown("UCI".into())));
        assert_eq!(
            parse("go Depth 3"),
            Err(ParseError::UnknownToken {
                command: "go",
                token: "Depth".into()
            })
        );
    }

    #[test]
    fn unknown_command_and_trailing_tokens() {
        assert_eq!(parse("joho uci"), Err(ParseError::Unknown("joho".into())));
        assert_eq!(
            parse("isready now"),
            Err(ParseError::UnknownToken {
                command: "isready",
                token: "now".into()
            })
        );
    }

    /// Issue 17: `setoption name X value a<0x01>b` was taken as is.
    #[test]
    fn setoption_refuses_control_characters() {
        for (line, part, found) in [
            ("setoption name X value a\u{1}b", "value", '\u{1}'),
            ("setoption name Hash value 16\u{1b}[2J", "value", '\u{1b}'),
            ("setoption name Ha\u{7f}sh value 16", "name", '\u{7f}'),
            ("setoption name Seed value 1\r2", "value", '\r'),
            // Control characters that are also whitespace (issue 39).
            ("setoption name Style value random\u{85}", "value", '\u{85}'),
            ("setoption name Style\u{85} value random", "name", '\u{85}'),
            (
                "setoption name Move\u{1f}Overhead value 5",
                "name",
                '\u{1f}',
            ),
        ] {
            match parse(line) {
                Err(e @ ParseError::ControlCharacter { .. }) => {
                    let text = e.to_string();
                    assert!(text.contains(part), "{text}");
                    let code = format!("U+{:04X}", u32::from(found));
                    assert!(text.contains(&code), "{text}");
                    assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
                }
                other => panic!("{line:?}: {other:?}"),
            }
        }
        // A Windows line end is the line's, not the value's.
        assert_eq!(
            parse("setoption name Style value greedy\r\n"),
            Ok(Command::SetOption {
                name: "Style".into(),
                value: Some("greedy".into())
            })
        );
        assert_eq!(
            parse("setoption name TablebasePath value a\tb"),
            Ok(Command::SetOption {
                name: "TablebasePath".into(),
                value: Some("a\tb".into())
            })
        );
    }

    #[test]
    fn setoption_forms() {
        assert_eq!(
            parse("setoption name Hash value 64"),
            Ok(Command::SetOption {
                name: "Hash".into(),
                value: Some("64".into())
            })
        );
        assert_eq!(
            parse("setoption   name  Move \t Overhead   value 10 "),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("10".into())
            })
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        // Value is kept verbatim apart from trimming.
        assert_eq!(
            parse("setoption name Book File value  C:\\my  books\\a.bin  "),
            Ok(Command::SetOption {
                name: "Book File".into(),
                value: Some("C:\\my  books\\a.bin".into())
            })
        );
        // Only the first "value" splits; later ones belong to the value.
        assert_eq!(
            parse("setoption name X value value 1"),
            Ok(Command::SetOption {
                name: "X".into(),
                value: Some("value 1".into())
            })
        );
        assert_eq!(
            parse("setoption name Foo value"),
            Ok(Command::SetOption {
                name: "Foo".into(),
                value: Some(String::new())
            })
        );
    }

    #[test]
    fn setoption_errors() {
        assert_eq!(
            parse("setoption"),
            Err(ParseError::Expected {
                command: "setoption",
                expected: "\"name\""
            })
        );
        assert_eq!(
            parse("setoption Hash value 1"),
            Err(ParseError::UnknownToken {
                command: "setoption",
                token: "Hash".into()
            })
        );
        for line in ["setoption name", "setoption name value 3"] {
            assert_eq!(
                parse(line),
                Err(ParseError::MissingValue {
                    command: "setoption",
                    param: "name"
                }),
                "{line:?}"
            );
        }
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            parse("position startpos"),
            Ok(Command::Position {
                base: PositionBase::StartPos,
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves"),
            Ok(Command::Position {
                base: PositionBase::StartPos,
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves a1 b2c2  c3xd4"),
            Ok(Command::Position {
                base: PositionBase::StartPos,
                moves: strs(&["a1", "b2c2", "c3xd4"])
            })
        );
        assert_eq!(
            parse("position fen 6/6/6/6/6  x 12 12\t1 moves a1"),
            Ok(Command::Position {
                base: PositionBase::Fen("6/6/6/6/6 x 12 12 1".into()),
                moves: strs(&["a1"])
            })
        );
        assert_eq!(
            parse("position startpos moves a1 moves b2 moves"),
            Ok(Command::Position {
                base: PositionBase::StartPos,
                moves: strs(&["a1", "b2"])
            })
        );
        assert_eq!(
            parse("position fen 6/6 x"),
            Ok(Command::Position {
                base: PositionBase::Fen("6/6 x".into()),
                moves: vec![]
            })
        );
    }

    #[test]
    fn position_errors() {
        assert_eq!(
            parse("position"),
            Err(ParseError::Expected {
                command: "position",
                expected: "\"startpos\" or \"fen\""
            })
        );
        assert_eq!(
            parse("position moves a1"),
            Err(ParseError::UnknownToken {
                command: "position",
                token: "moves".into()
            })
        );
        for line in ["position fen", "position fen  moves a1"] {
            assert_eq!(
                parse(line),
                Err(ParseError::MissingValue {
                    command: "position",
                    param: "fen"
                }),
                "{line:?}"
            );
        }
        assert_eq!(
            parse("position startpos a1"),
            Err(ParseError::UnknownToken {
                command: "position",
                token: "a1".into()
            })
        );
    }

    #[test]
    fn go_all_params() {
        let p = go(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 30 movetime 500 \
                    depth 9 nodes 123456 mate 3 infinite ponder perft 4",
        );
        assert_eq!(
            p,
            GoParams {
                p1time: Some(1000),
                p2time: Some(2000),
                p1inc: Some(10),
                p2inc: Some(20),
                movestogo: Some(30),
                movetime: Some(500),
                depth: Some(9),
                nodes: Some(123456),
                mate: Some(3),
                infinite: true,
                ponder: true,
                searchmoves: vec![],
                perft: Some(4),
            }
        );
        let u = go("go p1time 1 p2time 2 p1inc 3 p2inc 4");
        assert_eq!(
            (u.p1time, u.p2time, u.p1inc, u.p2inc),
            (Some(1), Some(2), Some(3), Some(4))
        );
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(go("go depth 3 depth 5").depth, Some(5));
    }

    #[test]
    fn go_numbers() {
        assert_eq!(go("go wtime -150 btime -0").p1time, Some(0));
        assert_eq!(go("go wtime -150 btime -0").p2time, Some(0));
        assert_eq!(go("go movetime +25").movetime, Some(25));
        assert_eq!(
            go("go wtime 99999999999999999999999999 nodes 18446744073709551616").p1time,
            Some(u64::MAX)
        );
        assert_eq!(go("go nodes 18446744073709551616").nodes, Some(u64::MAX));
        assert_eq!(go("go depth 4294967295").depth, Some(u32::MAX));
        assert_eq!(
            parse("go depth 4294967296"),
            Err(ParseError::NumberTooLarge {
                param: "depth",
                token: "4294967296".into(),
                max: u64::from(u32::MAX)
            })
        );
        for (line, param, token) in [
            ("go depth -1", "depth", "-1"),
            ("go nodes -5", "nodes", "-5"),
            ("go wtime 1e3", "wtime", "1e3"),
            ("go btime 10.5", "btime", "10.5"),
            ("go movetime -", "movetime", "-"),
            ("go mate x", "mate", "x"),
            ("go movestogo ５", "movestogo", "５"),
        ] {
            assert_eq!(
                parse(line),
                Err(ParseError::BadNumber {
                    param,
                    token: token.into()
                }),
                "{line:?}"
            );
        }
    }

    #[test]
    fn go_searchmoves() {
        let p = go("go searchmoves a1 b2 c3d3 depth 4");
        assert_eq!(p.searchmoves, strs(&["a1", "b2", "c3d3"]));
        assert_eq!(p.depth, Some(4));
        let p = go("go infinite searchmoves e5");
        assert_eq!(p.searchmoves, strs(&["e5"]));
        assert!(p.infinite);
        assert_eq!(
            parse("go searchmoves ponder"),
            Err(ParseError::MissingValue {
                command: "go",
                param: "searchmoves"
            })
        );
    }

    #[test]
    fn go_errors() {
        assert_eq!(
            parse("go depth"),
            Err(ParseError::MissingValue {
                command: "go",
                param: "depth"
            })
        );
        assert_eq!(
            parse("go depth infinite"),
            Err(ParseError::MissingValue {
                command: "go",
                param: "depth"
            })
        );
        assert_eq!(
            parse("go depth 3 fast"),
            Err(ParseError::UnknownToken {
                command: "go",
                token: "fast".into()
            })
        );
    }

    #[test]
    fn query_forms() {
        assert_eq!(parse("query gameover"), Ok(Command::Query(Query::GameOver)));
        assert_eq!(parse("query p1turn"), Ok(Command::Query(Query::P1Turn)));
        assert_eq!(parse("query result"), Ok(Command::Query(Query::Result)));
        assert_eq!(parse("query fen"), Ok(Command::Query(Query::Fen)));
        assert_eq!(parse("query moves"), Ok(Command::Query(Query::Moves)));
        assert_eq!(
            parse("query islegal a1b1"),
            Ok(Command::Query(Query::IsLegal("a1b1".into())))
        );
        assert!(matches!(
            parse("query"),
            Err(ParseError::Expected {
                command: "query",
                ..
            })
        ));
        assert_eq!(
            parse("query islegal"),
            Err(ParseError::MissingValue {
                command: "query",
                param: "islegal"
            })
        );
        assert_eq!(
            parse("query islegal a1 b1"),
            Err(ParseError::UnknownToken {
                command: "query",
                token: "b1".into()
            })
        );
        assert_eq!(
            parse("query score"),
            Err(ParseError::UnknownToken {
                command: "query",
                token: "score".into()
            })
        );
    }

    #[test]
    fn bench_and_perft() {
        assert_eq!(parse("bench 12"), Ok(Command::Bench { depth: Some(12) }));
        assert_eq!(parse("perft 5"), Ok(Command::Perft { depth: 5 }));
        assert_eq!(
            parse("perft"),
            Err(ParseError::MissingValue {
                command: "perft",
                param: "depth"
            })
        );
        assert_eq!(
            parse("bench deep"),
            Err(ParseError::BadNumber {
                param: "depth",
                token: "deep".into()
            })
        );
        assert!(matches!(
            parse("perft 99999999999999999999"),
            Err(ParseError::NumberTooLarge { param: "depth", .. })
        ));
        assert_eq!(
            parse("perft 3 4"),
            Err(ParseError::UnknownToken {
                command: "perft",
                token: "4".into()
            })
        );
    }

    #[test]
    fn error_messages_name_the_token_on_one_line() {
        let msg = |line: &str| parse(line).unwrap_err().to_string();
        assert_eq!(msg("foo"), "unknown command \"foo\"");
        assert_eq!(msg("go depth x"), "depth: \"x\" is not a valid number");
        assert_eq!(msg("go fast"), "go: unexpected token \"fast\"");
        assert_eq!(msg("go depth"), "go: depth needs a value");
        assert_eq!(
            msg("perft 5000000000"),
            "depth: \"5000000000\" is too large (max 4294967295)"
        );
        assert_eq!(
            msg("position"),
            "position: expected \"startpos\" or \"fen\""
        );
        // Control characters are escaped, so the message stays on one line.
        assert_eq!(msg("a\u{7}b"), "unknown command \"a\\u{7}b\"");
        let long = "x".repeat(10_000);
        let m = msg(&long);
        assert!(m.len() < 80 && m.ends_with("..."), "{m}");
    }

    /// xorshift64*: deterministic, so a failing case can be reproduced.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let len = rng.below(64);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let line = String::from_utf8_lossy(&bytes);
            if let Err(e) = parse(&line) {
                assert!(!e.to_string().contains('\n'));
            }
        }
    }

    /// Random bytes rarely reach deep parser states, so also shuffle real
    /// keywords with awkward numbers and separators.
    #[test]
    fn random_token_soup_never_panics() {
        const WORDS: [&str; 40] = [
            "uci",
            "go",
            "position",
            "setoption",
            "name",
            "value",
            "fen",
            "startpos",
            "moves",
            "query",
            "islegal",
            "perft",
            "bench",
            "searchmoves",
            "depth",
            "wtime",
            "btime",
            "nodes",
            "mate",
            "movestogo",
            "infinite",
            "ponder",
            "-1",
            "-",
            "+",
            "0",
            "4294967296",
            "99999999999999999999999",
            "-99999999999999999999",
            "a1",
            "a1b2",
            "\u{fffd}",
            "é",
            "\u{0}",
            "",
            "movetime",
            "p1inc",
            "result",
            "d",
            "quit",
        ];
        const SEPS: [&str; 5] = [" ", "\t", "   ", "\r", "\u{a0}"];
        let mut rng = Rng(12345);
        for _ in 0..50_000 {
            let mut line = String::new();
            for _ in 0..rng.below(10) {
                line.push_str(WORDS[rng.below(WORDS.len())]);
                line.push_str(SEPS[rng.below(SEPS.len())]);
            }
            let _ = parse(&line);
        }
    }
}
