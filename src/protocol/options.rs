//! Engine options as UCI / UGI describes them: the `option name ... type ...`
//! lines sent after `uci`/`ugi`, and validation of `setoption` values.
//!
//! Decisions:
//! * Option names match case-insensitively (ASCII) and ignoring whitespace,
//!   because GUIs and people differ in how they echo names back
//!   (`setoption name move overhead` must reach `MoveOverhead`).
//! * `check` accepts `true`/`false` in any ASCII case; `spin` accepts an
//!   optionally signed decimal integer; a `combo` value matches a var
//!   case-insensitively and the canonical var text is stored. These values
//!   are trimmed first.
//! * `string` values are stored as given; a missing value or the literal
//!   `<empty>` (the UCI convention for an empty default) means the empty
//!   string, because that is how GUIs clear a string option.
//! * `button` takes no value; an empty value is tolerated because some GUIs
//!   send `setoption name Clear Hash value` with nothing after it.
//! * A rejected value never changes the stored one.

use super::command::Shown;
use std::fmt;

/// The type and constraints of one option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    Check { default: bool },
    Spin { default: i64, min: i64, max: i64 },
    Combo { default: String, vars: Vec<String> },
    Button,
    String { default: String },
}

/// One option: its display name (as sent to the GUI) and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionDef {
    pub name: String,
    pub kind: OptionKind,
}

/// A current option value. Buttons hold `Pressed` permanently; it is also
/// what [`OptionTable::set`] returns so the caller knows to act.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Text(String),
    Pressed,
}

/// Why an option could not be defined or set. `Display` quotes and escapes
/// user-supplied text so the message is one line, safe for `info string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    UnknownOption(String),
    /// A check, spin or combo option was set without a value.
    MissingValue(String),
    NotABool {
        name: String,
        value: String,
    },
    NotAnInteger {
        name: String,
        value: String,
    },
    /// `value` is text so that integers too large even for `i64` are
    /// reported as written.
    OutOfRange {
        name: String,
        value: String,
        min: i64,
        max: i64,
    },
    NotAVar {
        name: String,
        value: String,
        vars: Vec<String>,
    },
    /// A button was given a value.
    UnexpectedValue {
        name: String,
        value: String,
    },
    /// The table itself is malformed (a programming error, not bad input),
    /// reported by [`OptionTable::new`] rather than panicking.
    InvalidDefinition {
        name: String,
        reason: &'static str,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownOption(name) => write!(f, "unknown option {}", Shown(name)),
            OptionError::MissingValue(name) => write!(f, "option {name} needs a value"),
            OptionError::NotABool { name, value } => {
                write!(
                    f,
                    "option {name} expects true or false, got {}",
                    Shown(value)
                )
            }
            OptionError::NotAnInteger { name, value } => {
                write!(f, "option {name} expects an integer, got {}", Shown(value))
            }
            OptionError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(
                f,
                "option {name} must be between {min} and {max}, got {}",
                Shown(value)
            ),
            OptionError::NotAVar { name, value, vars } => write!(
                f,
                "option {name} must be one of {}, got {}",
                vars.join(", "),
                Shown(value)
            ),
            OptionError::UnexpectedValue { name, value } => write!(
                f,
                "option {name} is a button and takes no value, got {}",
                Shown(value)
            ),
            OptionError::InvalidDefinition { name, reason } => {
                write!(f, "invalid definition of option {}: {reason}", Shown(name))
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// Case-insensitive comparison that ignores whitespace entirely, so that
/// `Move Overhead`, `moveoverhead` and `MoveOverhead` all name one option:
/// GUIs and users disagree on how option names are spaced.
fn same_name(a: &str, b: &str) -> bool {
    squeeze(a).eq(squeeze(b))
}

fn squeeze(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
}

impl OptionDef {
    pub fn check(name: impl Into<String>, default: bool) -> Self {
        Self {
            name: name.into(),
            kind: OptionKind::Check { default },
        }
    }

    pub fn spin(name: impl Into<String>, default: i64, min: i64, max: i64) -> Self {
        Self {
            name: name.into(),
            kind: OptionKind::Spin { default, min, max },
        }
    }

    pub fn combo(name: impl Into<String>, default: impl Into<String>, vars: &[&str]) -> Self {
        Self {
            name: name.into(),
            kind: OptionKind::Combo {
                default: default.into(),
                vars: vars.iter().map(|v| v.to_string()).collect(),
            },
        }
    }

    pub fn button(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: OptionKind::Button,
        }
    }

    pub fn string(name: impl Into<String>, default: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: OptionKind::String {
                default: default.into(),
            },
        }
    }

    /// The exact line announced after `uci`/`ugi`, e.g.
    /// `option name Hash type spin default 16 min 1 max 65536`.
    pub fn describe(&self) -> String {
        let name = &self.name;
        match &self.kind {
            OptionKind::Check { default } => {
                format!("option name {name} type check default {default}")
            }
            OptionKind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, vars } => {
                let mut line = format!("option name {name} type combo default {default}");
                for var in vars {
                    line.push_str(" var ");
                    line.push_str(var);
                }
                line
            }
            OptionKind::Button => format!("option name {name} type button"),
            OptionKind::String { default } => {
                // UCI spells an empty string as "<empty>" so the line still
                // has a token after "default".
                let shown = if default.is_empty() {
                    "<empty>"
                } else {
                    default
                };
                format!("option name {name} type string default {shown}")
            }
        }
    }

    /// The value this option starts with.
    pub fn default_value(&self) -> OptionValue {
        match &self.kind {
            OptionKind::Check { default } => OptionValue::Bool(*default),
            OptionKind::Spin { default, .. } => OptionValue::Int(*default),
            OptionKind::Combo { default, .. } | OptionKind::String { default } => {
                OptionValue::Text(default.clone())
            }
            OptionKind::Button => OptionValue::Pressed,
        }
    }

    /// Validates the text of a `setoption ... value <text>` (or `None` when
    /// `value` was absent) against this option's kind.
    pub fn parse_value(&self, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let name = || self.name.clone();
        let required = || {
            value
                .map(str::trim)
                .ok_or_else(|| OptionError::MissingValue(name()))
        };
        match &self.kind {
            OptionKind::Check { .. } => {
                let v = required()?;
                if v.eq_ignore_ascii_case("true") {
                    Ok(OptionValue::Bool(true))
                } else if v.eq_ignore_ascii_case("false") {
                    Ok(OptionValue::Bool(false))
                } else {
                    Err(OptionError::NotABool {
                        name: name(),
                        value: v.to_string(),
                    })
                }
            }
            OptionKind::Spin { min, max, .. } => {
                let v = required()?;
                let out_of_range = || OptionError::OutOfRange {
                    name: name(),
                    value: v.to_string(),
                    min: *min,
                    max: *max,
                };
                match v.parse::<i64>() {
                    Ok(n) if (*min..=*max).contains(&n) => Ok(OptionValue::Int(n)),
                    Ok(_) => Err(out_of_range()),
                    // An integer too big for i64 is still an integer; saying
                    // "out of range" is more helpful than "not an integer".
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::num::IntErrorKind::PosOverflow
                                | std::num::IntErrorKind::NegOverflow
                        ) =>
                    {
                        Err(out_of_range())
                    }
                    Err(_) => Err(OptionError::NotAnInteger {
                        name: name(),
                        value: v.to_string(),
                    }),
                }
            }
            OptionKind::Combo { vars, .. } => {
                let v = required()?;
                match vars.iter().find(|var| var.eq_ignore_ascii_case(v)) {
                    Some(var) => Ok(OptionValue::Text(var.clone())),
                    None => Err(OptionError::NotAVar {
                        name: name(),
                        value: v.to_string(),
                        vars: vars.clone(),
                    }),
                }
            }
            OptionKind::Button => match value.map(str::trim) {
                None | Some("") => Ok(OptionValue::Pressed),
                Some(v) => Err(OptionError::UnexpectedValue {
                    name: name(),
                    value: v.to_string(),
                }),
            },
            OptionKind::String { .. } => match value {
                None | Some("<empty>") => Ok(OptionValue::Text(String::new())),
                Some(v) => Ok(OptionValue::Text(v.to_string())),
            },
        }
    }

    /// Catches definitions that would produce a malformed `option` line or
    /// an option the GUI could never set.
    fn validate(&self) -> Result<(), OptionError> {
        let invalid = |reason| {
            Err(OptionError::InvalidDefinition {
                name: self.name.clone(),
                reason,
            })
        };
        if self.name.split_whitespace().next().is_none() {
            return invalid("empty name");
        }
        if self.name.split_whitespace().collect::<Vec<_>>().join(" ") != self.name {
            return invalid("name must be single-spaced with no outer whitespace");
        }
        // `setoption` ends the name at "value", and GUIs read the describe
        // line's name up to "type", so either word would split the name.
        if self
            .name
            .split_whitespace()
            .any(|w| w == "value" || w == "type")
        {
            return invalid("name contains the word \"value\" or \"type\"");
        }
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                if min > max {
                    return invalid("min is greater than max");
                }
                if !(min..=max).contains(&default) {
                    return invalid("default is outside min..max");
                }
            }
            OptionKind::Combo { default, vars } => {
                if vars.is_empty() {
                    return invalid("combo has no vars");
                }
                if !vars.contains(default) {
                    return invalid("combo default is not one of its vars");
                }
                if vars
                    .iter()
                    .any(|v| v.is_empty() || v.split_whitespace().any(|w| w == "var"))
                {
                    return invalid("combo var is empty or contains the word \"var\"");
                }
            }
            OptionKind::Check { .. } | OptionKind::Button | OptionKind::String { .. } => {}
        }
        Ok(())
    }
}

/// The engine's options with their current values, kept in announcement
/// order. `defs[i]` owns `values[i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionTable {
    defs: Vec<OptionDef>,
    values: Vec<OptionValue>,
}

impl OptionTable {
    /// Builds a table with every option at its default. Fails on a malformed
    /// definition or on two names that would match each other.
    pub fn new(defs: Vec<OptionDef>) -> Result<Self, OptionError> {
        for (i, def) in defs.iter().enumerate() {
            def.validate()?;
            if defs[..i].iter().any(|d| same_name(&d.name, &def.name)) {
                return Err(OptionError::InvalidDefinition {
                    name: def.name.clone(),
                    reason: "duplicate name",
                });
            }
        }
        let values = defs.iter().map(OptionDef::default_value).collect();
        Ok(Self { defs, values })
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.defs.iter().position(|d| same_name(&d.name, name))
    }

    /// Looks an option up by name, ignoring ASCII case and spacing.
    pub fn find(&self, name: &str) -> Option<&OptionDef> {
        self.index(name).map(|i| &self.defs[i])
    }

    /// Validates and stores a value from `setoption`, returning the stored
    /// value (`Pressed` for buttons) so the caller can act on it. On error
    /// the previous value is kept.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let i = self
            .index(name)
            .ok_or_else(|| OptionError::UnknownOption(name.to_string()))?;
        let parsed = self.defs[i].parse_value(value)?;
        self.values[i] = parsed.clone();
        Ok(parsed)
    }

    /// The current value, whatever its type.
    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.index(name).map(|i| &self.values[i])
    }

    /// `None` if there is no such option or it is not a `check`.
    pub fn get_bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            OptionValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// `None` if there is no such option or it is not a `spin`.
    pub fn get_int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            OptionValue::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The text of a `combo` or `string` option.
    pub fn get_text(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            OptionValue::Text(s) => Some(s),
            _ => None,
        }
    }

    pub fn defs(&self) -> &[OptionDef] {
        &self.defs
    }

    /// The `option ...` lines, in definition order.
    pub fn describe_all(&self) -> Vec<String> {
        self.defs.iter().map(OptionDef::describe).collect()
    }

    pub fn reset_to_defaults(&mut self) {
        self.values = self.defs.iter().map(OptionDef::default_value).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> OptionTable {
        OptionTable::new(vec![
            OptionDef::spin("Hash", 16, 1, 65536),
            OptionDef::spin("Move Overhead", 10, 0, 5000),
            OptionDef::spin("Contempt", 0, -100, 100),
            OptionDef::combo("Variant", "standard", &["standard", "6x6"]),
            OptionDef::check("Ponder", false),
            OptionDef::button("Clear Hash"),
            OptionDef::string("Foo", ""),
            OptionDef::string("Book File", "book.bin"),
        ])
        .expect("valid table")
    }

    #[test]
    fn describe_lines_exact() {
        assert_eq!(
            table().describe_all(),
            vec![
                "option name Hash type spin default 16 min 1 max 65536",
                "option name Move Overhead type spin default 10 min 0 max 5000",
                "option name Contempt type spin default 0 min -100 max 100",
                "option name Variant type combo default standard var standard var 6x6",
                "option name Ponder type check default false",
                "option name Clear Hash type button",
                "option name Foo type string default <empty>",
                "option name Book File type string default book.bin",
            ]
        );
        assert_eq!(
            OptionDef::check("Ponder", true).describe(),
            "option name Ponder type check default true"
        );
    }

    #[test]
    fn defaults() {
        let t = table();
        assert_eq!(t.get_int("Hash"), Some(16));
        assert_eq!(t.get_bool("Ponder"), Some(false));
        assert_eq!(t.get_text("Variant"), Some("standard"));
        assert_eq!(t.get_text("Foo"), Some(""));
        assert_eq!(t.get("Clear Hash"), Some(&OptionValue::Pressed));
    }

    #[test]
    fn names_are_case_and_space_insensitive() {
        let mut t = table();
        assert_eq!(
            t.find("move overhead").map(|d| d.name.as_str()),
            Some("Move Overhead")
        );
        assert_eq!(
            t.find("  MOVE \t  OVERHEAD ").map(|d| d.name.as_str()),
            Some("Move Overhead")
        );
        assert_eq!(
            t.find("MoveOverhead").map(|d| d.name.as_str()),
            Some("Move Overhead")
        );
        assert!(t.find("Move").is_none());
        assert_eq!(t.set("move overhead", Some("50")), Ok(OptionValue::Int(50)));
        assert_eq!(t.get_int("Move Overhead"), Some(50));
        assert_eq!(t.set("clear hash", None), Ok(OptionValue::Pressed));
    }

    #[test]
    fn valid_values() {
        let mut t = table();
        assert_eq!(t.set("Hash", Some("1")), Ok(OptionValue::Int(1)));
        assert_eq!(t.set("Hash", Some("65536")), Ok(OptionValue::Int(65536)));
        assert_eq!(t.set("Hash", Some(" +64 ")), Ok(OptionValue::Int(64)));
        assert_eq!(t.set("Contempt", Some("-100")), Ok(OptionValue::Int(-100)));
        assert_eq!(t.set("Ponder", Some("TRUE")), Ok(OptionValue::Bool(true)));
        assert_eq!(t.get_bool("Ponder"), Some(true));
        assert_eq!(t.set("Ponder", Some("False")), Ok(OptionValue::Bool(false)));
        // Case-insensitive match stores the canonical var.
        assert_eq!(
            t.set("Variant", Some("6X6")),
            Ok(OptionValue::Text("6x6".into()))
        );
        assert_eq!(t.get_text("Variant"), Some("6x6"));
        assert_eq!(t.set("Clear Hash", Some("")), Ok(OptionValue::Pressed));
        assert_eq!(
            t.set("Book File", Some("C:\\my  books\\a.bin")),
            Ok(OptionValue::Text("C:\\my  books\\a.bin".into()))
        );
        assert_eq!(
            t.set("Book File", Some("<empty>")),
            Ok(OptionValue::Text(String::new()))
        );
        assert_eq!(t.set("Foo", Some("x")), Ok(OptionValue::Text("x".into())));
        assert_eq!(t.set("Foo", None), Ok(OptionValue::Text(String::new())));
    }

    #[test]
    fn every_error() {
        let mut t = table();
        assert_eq!(
            t.set("Nope", Some("1")),
            Err(OptionError::UnknownOption("Nope".into()))
        );
        for name in ["Hash", "Ponder", "Variant"] {
            assert_eq!(
                t.set(name, None),
                Err(OptionError::MissingValue(name.into()))
            );
        }
        assert_eq!(
            t.set("Ponder", Some("yes")),
            Err(OptionError::NotABool {
                name: "Ponder".into(),
                value: "yes".into()
            })
        );
        for bad in ["abc", "", "1.5", "0x10", "12abc"] {
            assert_eq!(
                t.set("Hash", Some(bad)),
                Err(OptionError::NotAnInteger {
                    name: "Hash".into(),
                    value: bad.into()
                }),
                "{bad:?}"
            );
        }
        for bad in [
            "0",
            "65537",
            "-5",
            "99999999999999999999999",
            "-99999999999999999999999",
        ] {
            assert_eq!(
                t.set("Hash", Some(bad)),
                Err(OptionError::OutOfRange {
                    name: "Hash".into(),
                    value: bad.into(),
                    min: 1,
                    max: 65536
                }),
                "{bad:?}"
            );
        }
        assert_eq!(
            t.set("Variant", Some("8x8")),
            Err(OptionError::NotAVar {
                name: "Variant".into(),
                value: "8x8".into(),
                vars: vec!["standard".into(), "6x6".into()]
            })
        );
        assert_eq!(
            t.set("Clear Hash", Some("now")),
            Err(OptionError::UnexpectedValue {
                name: "Clear Hash".into(),
                value: "now".into()
            })
        );
    }

    #[test]
    fn invalid_value_keeps_old_value() {
        let mut t = table();
        t.set("Hash", Some("128")).unwrap();
        t.set("Ponder", Some("true")).unwrap();
        t.set("Variant", Some("6x6")).unwrap();
        assert!(t.set("Hash", Some("0")).is_err());
        assert!(t.set("Hash", Some("lots")).is_err());
        assert!(t.set("Hash", None).is_err());
        assert!(t.set("Ponder", Some("maybe")).is_err());
        assert!(t.set("Variant", Some("7x7")).is_err());
        assert_eq!(t.get_int("Hash"), Some(128));
        assert_eq!(t.get_bool("Ponder"), Some(true));
        assert_eq!(t.get_text("Variant"), Some("6x6"));
    }

    #[test]
    fn getters_check_the_type() {
        let t = table();
        assert_eq!(t.get_bool("Hash"), None);
        assert_eq!(t.get_int("Ponder"), None);
        assert_eq!(t.get_text("Hash"), None);
        assert_eq!(t.get_int("Nope"), None);
    }

    #[test]
    fn reset_restores_defaults() {
        let mut t = table();
        t.set("Hash", Some("256")).unwrap();
        t.set("Variant", Some("6x6")).unwrap();
        t.set("Foo", Some("bar")).unwrap();
        t.reset_to_defaults();
        assert_eq!(t, table());
    }

    #[test]
    fn error_messages() {
        let mut t = table();
        let msg = |r: Result<OptionValue, OptionError>| r.unwrap_err().to_string();
        assert_eq!(msg(t.set("Nope", None)), "unknown option \"Nope\"");
        assert_eq!(msg(t.set("Hash", None)), "option Hash needs a value");
        assert_eq!(
            msg(t.set("Ponder", Some("yes"))),
            "option Ponder expects true or false, got \"yes\""
        );
        assert_eq!(
            msg(t.set("Hash", Some("abc"))),
            "option Hash expects an integer, got \"abc\""
        );
        assert_eq!(
            msg(t.set("Hash", Some("0"))),
            "option Hash must be between 1 and 65536, got \"0\""
        );
        assert_eq!(
            msg(t.set("Variant", Some("8x8"))),
            "option Variant must be one of standard, 6x6, got \"8x8\""
        );
        assert_eq!(
            msg(t.set("Clear Hash", Some("now"))),
            "option Clear Hash is a button and takes no value, got \"now\""
        );
        let m = msg(t.set("Ponder", Some(&"\n".repeat(500))));
        assert!(!m.contains('\n') && m.len() < 150, "{m}");
    }

    #[test]
    fn malformed_tables_are_rejected() {
        let reject = |def: OptionDef| {
            matches!(
                OptionTable::new(vec![def]),
                Err(OptionError::InvalidDefinition { .. })
            )
        };
        assert!(reject(OptionDef::spin("Hash", 0, 1, 10)));
        assert!(reject(OptionDef::spin("Hash", 5, 10, 1)));
        assert!(reject(OptionDef::combo("V", "x", &["a", "b"])));
        assert!(reject(OptionDef::combo("V", "a", &[])));
        assert!(reject(OptionDef::combo("V", "a", &["a", "var b"])));
        assert!(reject(OptionDef::check("", true)));
        assert!(reject(OptionDef::check(" Ponder", true)));
        assert!(reject(OptionDef::check("Default value", true)));
        assert!(reject(OptionDef::check("Piece type", true)));
        assert_eq!(
            OptionTable::new(vec![
                OptionDef::check("Ponder", true),
                OptionDef::button("PONDER"),
            ]),
            Err(OptionError::InvalidDefinition {
                name: "PONDER".into(),
                reason: "duplicate name"
            })
        );
    }
}
