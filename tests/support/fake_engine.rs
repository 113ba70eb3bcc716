//! A minimal UGI/UCI engine for the match runner's tests. It plays a legal
//! move chosen from a hash of (seed, position) — so its games do not depend
//! on which process plays them — or the first legal move, and can be told to
//! misbehave at its Nth `go`:
//!
//! `yote-fake-engine [--mode M] [--at N] [--seed S]`, M one of
//! normal, first, illegal, crash, hang, overrun, garbage, malformed,
//! wrong-variant (reports a 6x6 start whatever it is told), flood (endless
//! `info` lines, no `bestmove`), endless-line (bytes without a newline),
//! orphan (leaves a grandchild holding its output and exits; the
//! grandchild's pid goes to stderr), double-bestmove (answers every `go`
//! twice, the second a stale move), extreme-score (reports
//! `score cp -2147483648`).
//!
//! It announces the rule options and `Style` (`random` or `first`) and
//! answers a bad option name or value with `info string error`, as the real
//! engine does; it reports its rules as `info string variant <spec>
//! startpos <position>`.

use std::io::{BufRead, Write};
use std::time::Duration;
use yote::rng::SplitMix64;
use yote::rules::{Game, MoveList, Player, Rules, Variant};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    First,
    Illegal,
    Crash,
    Hang,
    Overrun,
    Garbage,
    Malformed,
    WrongVariant,
    Flood,
    EndlessLine,
    Orphan,
    DoubleBestmove,
    ExtremeScore,
}

struct Engine {
    mode: Mode,
    at: u64,
    seed: u64,
    gos: u64,
    variant: Variant,
    game: Game,
}

fn main() {
    let mut engine = Engine {
        mode: Mode::Normal,
        at: 1,
        seed: 0,
        gos: 0,
        variant: Variant::STANDARD,
        game: Game::new(Rules::standard()),
    };
    parse_args(&mut engine);
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        if !engine.command(line.trim()) {
            return;
        }
    }
}

fn parse_args(engine: &mut Engine) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map(String::as_str).unwrap_or("");
        match pair[0].as_str() {
            "--mode" => {
                engine.mode = match value {
                    "first" => Mode::First,
                    "illegal" => Mode::Illegal,
                    "crash" => Mode::Crash,
                    "hang" => Mode::Hang,
                    "overrun" => Mode::Overrun,
                    "garbage" => Mode::Garbage,
                    "malformed" => Mode::Malformed,
                    "wrong-variant" => Mode::WrongVariant,
                    "flood" => Mode::Flood,
                    "endless-line" => Mode::EndlessLine,
                    "orphan" => Mode::Orphan,
                    "double-bestmove" => Mode::DoubleBestmove,
                    "extreme-score" => Mode::ExtremeScore,
                    _ => Mode::Normal,
                }
            }
            "--at" => engine.at = value.parse().unwrap_or(1),
            "--seed" => engine.seed = value.parse().unwrap_or(0),
            other => eprintln!("unknown argument {other}"),
        }
    }
}

fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

impl Engine {
    fn rules(&self) -> Rules {
        Rules::new(self.variant).expect("only valid variants are kept")
    }

    /// Handles one command; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("ugi") => self.hello("ugiok"),
            Some("uci") => self.hello("uciok"),
            Some("isready") => say("readyok"),
            Some("setoption") => self.set_option(&words),
            Some("position") => self.position(&words),
            Some("query") if words.get(1) == Some(&"fen") => self.report_fen("response"),
            Some("go") => self.go(&words),
            Some("quit") => return false,
            _ => {}
        }
        true
    }

    fn hello(&self, ok: &str) {
        say("id name yote-fake-engine");
        say("id author the yote tests");
        say("option name Variant type string default standard");
        for name in RULE_OPTIONS {
            say(&format!("option name {name} type string default ?"));
        }
        say("option name Style type combo default random var random var first");
        say(ok);
    }

    /// `setoption name <Name> value <v>`: rule options change the variant
    /// (CamelCase names map to the rules' spec keys), `Style` picks random or
    /// first moves; anything else is refused with an error line.
    fn set_option(&mut self, words: &[&str]) {
        let (Some(name), Some(value)) = (words.get(2), words.get(4)) else {
            return say("info string error: setoption needs name and value");
        };
        if name.eq_ignore_ascii_case("style") {
            match *value {
                "random" => self.mode = Mode::Normal,
                "first" => self.mode = Mode::First,
                _ => say(&format!(
                    "info string error: Style must be random or first, got {value:?}"
                )),
            }
            return;
        }
        let mut next = self.variant;
        let applied = if name.eq_ignore_ascii_case("variant") {
            Variant::preset(value).map(|v| next = v).is_some()
        } else if RULE_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(name)) {
            next.set(&snake_case(name), value).is_ok()
        } else {
            return say(&format!("info string error: unknown option {name:?}"));
        };
        if applied && Rules::new(next).is_ok() {
            self.variant = next;
            self.game = Game::new(self.rules());
            say(&format!(
                "info string variant {} startpos {}",
                self.variant.spec(),
                self.start_text()
            ));
        } else {
            say(&format!(
                "info string error: bad value {value:?} for {name}"
            ));
        }
    }

    fn start_text(&self) -> String {
        if self.mode == Mode::WrongVariant {
            "6/6/6/6/6/6 w 12 12 0 1".to_string()
        } else {
            self.game.rules().position_text(self.game.position())
        }
    }

    fn report_fen(&self, prefix: &str) {
        say(&format!("{prefix} {}", self.start_text()));
    }

    fn position(&mut self, words: &[&str]) {
        let rules = self.rules();
        let moves_at = words
            .iter()
            .position(|w| *w == "moves")
            .unwrap_or(words.len());
        let start = match words.get(1) {
            Some(&"fen") => match rules.parse_position(&words[2..moves_at].join(" ")) {
                Ok(pos) => pos,
                Err(e) => return say(&format!("info string error {e}")),
            },
            _ => rules.start_position(),
        };
        let mut game = Game::from_position(rules, start);
        for mv in words.iter().skip(moves_at + 1) {
            if let Err(e) = game.play_text(mv) {
                return say(&format!("info string error {e}"));
            }
        }
        self.game = game;
    }

    fn go(&mut self, words: &[&str]) {
        self.gos += 1;
        if self.gos >= self.at && self.misbehave(words) {
            return;
        }
        let mut list = MoveList::new();
        self.game.legal_moves(&mut list);
        if list.is_empty() {
            return say("bestmove (none)");
        }
        let index = match self.mode {
            Mode::First => 0,
            _ => {
                let key = self.game.position().key() ^ self.game.moves().len() as u64;
                SplitMix64::new(self.seed ^ key).below(list.len())
            }
        };
        let text = self.game.rules().move_text(&list.as_slice()[index]);
        let score = if self.mode == Mode::ExtremeScore {
            i64::from(i32::MIN)
        } else {
            self.material()
        };
        say(&format!("info depth 1 score cp {score} nodes 1 pv {text}"));
        say(&format!("bestmove {text}"));
        if self.mode == Mode::DoubleBestmove {
            // A stale answer: legal now, but not after the opponent's reply.
            let other = &list.as_slice()[list.len() - 1 - index];
            say(&format!("bestmove {}", self.game.rules().move_text(other)));
        }
    }

    /// Piece difference for the side to move, in centipawns, so score
    /// adjudication has something to read.
    fn material(&self) -> i64 {
        let pos = self.game.position();
        let us = pos.side_to_move();
        100 * (i64::from(pos.total(us)) - i64::from(pos.total(!us)))
    }

    /// Does this go's misbehaviour; true when no normal answer must follow.
    fn misbehave(&mut self, words: &[&str]) -> bool {
        match self.mode {
            Mode::Normal
            | Mode::First
            | Mode::WrongVariant
            | Mode::DoubleBestmove
            | Mode::ExtremeScore => false,
            Mode::Flood => loop {
                say("info depth 1 score cp 0 nodes 1 string flooding the runner");
            },
            Mode::EndlessLine => {
                let mut out = std::io::stdout().lock();
                let chunk = [b'x'; 4096];
                let _ = out.write_all(b"info string ");
                loop {
                    if out.write_all(&chunk).is_err() {
                        std::process::exit(1);
                    }
                }
            }
            Mode::Orphan => {
                // The grandchild inherits stdout and keeps the pipe open.
                if let Ok(child) = std::process::Command::new("sleep").arg("1000").spawn() {
                    eprintln!("grandchild {}", child.id());
                }
                std::process::exit(3);
            }
            Mode::Illegal => {
                say(&format!("bestmove {}", self.illegal_move()));
                true
            }
            Mode::Crash => std::process::exit(3),
            Mode::Hang => true,
            Mode::Overrun => {
                let own = if self.game.position().side_to_move() == Player::White {
                    ["p1time", "wtime"]
                } else {
                    ["p2time", "btime"]
                };
                let left = words
                    .windows(2)
                    .find(|w| own.contains(&w[0]))
                    .and_then(|w| w[1].parse::<u64>().ok())
                    .unwrap_or(0);
                std::thread::sleep(Duration::from_millis(left + 500));
                false
            }
            Mode::Garbage => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(b"\xff\xfe\x00\x07garbage\n");
                let _ = out.flush();
                true
            }
            Mode::Malformed => {
                say("bestmove zz99");
                true
            }
        }
    }

    /// Placing on an occupied cell, or stepping from an empty a1.
    fn illegal_move(&self) -> String {
        let pos = self.game.position();
        let geometry = self.game.rules().geometry();
        match pos.occupied().next() {
            Some(cell) => format!("@{}", geometry.cell_name(cell)),
            None => "a1a2".to_string(),
        }
    }
}

/// The rule options the runner sends for variants that are not presets.
const RULE_OPTIONS: [&str; 14] = [
    "Rows",
    "Columns",
    "Pieces",
    "Removal",
    "WinCondition",
    "NoMoves",
    "MandatoryCapture",
    "MultiJump",
    "BonusTurn",
    "JumpOwn",
    "ThreeDraw",
    "NoCaptureDraw",
    "NoCaptureOutcome",
    "RepetitionDraw",
];

/// `WinCondition` → `win_condition`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}
