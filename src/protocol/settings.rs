//! The engine's option table, and how option values map onto the rules
//! (`Variant`) and the searcher (`SearchOptions`).
//!
//! Rule options are stored twice: as option values (what `uci` announces and
//! GUIs display) and in the `Variant` the session plays. The variant is the
//! truth; `sync_rule_options` copies it back into the table after a change.

use super::options::{OptionDef, OptionError, OptionTable, OptionValue};
use crate::rules::geometry::{MAX_SIZE, MIN_SIZE};
use crate::rules::variant::{MAX_NO_CAPTURE_DRAW, MAX_PIECES, MAX_REPETITION_DRAW};
use crate::rules::{NoCaptureOutcome, NoMoves, Removal, Variant, VariantError, WinCondition};
use crate::search::alphabeta::{FeatureError, Features};
use crate::search::params::{ParamError, SearchParams};
use crate::search::skill::{MAX_ELO, MAX_LEVEL, MIN_ELO};
use crate::search::{PlayStyle, SearchOptions};
use crate::tablebase;
use std::fmt;

pub const VARIANT: &str = "Variant";
/// The whole rule set as a `string` option: managers that check a combo's
/// value against its vars (cutechess) or drop unknown ones (fastchess)
/// cannot send a spec through `Variant`.
pub const VARIANT_SPEC: &str = "VariantSpec";
/// Fairy-Stockfish's name for the variant combo, which front ends made
/// for it send: the same presets as `Variant`.
pub const UCI_VARIANT: &str = "UCI_Variant";

/// True for the three options that set every rule at once.
pub fn sets_every_rule(option: &str) -> bool {
    [VARIANT, VARIANT_SPEC, UCI_VARIANT].contains(&option)
}
pub const CLEAR_HASH: &str = "Clear Hash";
pub const PONDER: &str = "Ponder";

/// Rule options: the option name and the `Variant::set` key it edits.
const RULE_OPTIONS: [(&str, &str); 14] = [
    ("Rows", "rows"),
    ("Columns", "cols"),
    ("Pieces", "pieces"),
    ("Removal", "removal"),
    ("WinCondition", "win"),
    ("NoMoves", "no_moves"),
    ("MandatoryCapture", "mandatory_capture"),
    ("MultiJump", "multi_jump"),
    ("BonusTurn", "bonus_turn"),
    ("JumpOwn", "jump_own"),
    ("ThreeDraw", "three_draw"),
    ("NoCaptureDraw", "no_capture_draw"),
    ("NoCaptureOutcome", "no_capture_outcome"),
    ("RepetitionDraw", "repetition_draw"),
];

/// The rules that no preset sets (for practical play, not part of any
/// edition's rules): a `Variant` value that does not name them resets them
/// to off, which a client that set them first must be told.
const HISTORY_KEYS: [&str; 3] = ["no_capture_draw", "no_capture_outcome", "repetition_draw"];

const STYLES: [(&str, PlayStyle); 3] = [
    ("search", PlayStyle::Search),
    ("random", PlayStyle::Random),
    ("greedy", PlayStyle::Greedy),
];

pub const MAX_HASH_MB: i64 = 4096;

/// The `Variant::set` key of a rule option (given its canonical name).
pub fn rule_key(option: &str) -> Option<&'static str> {
    RULE_OPTIONS
        .iter()
        .find(|(name, _)| *name == option)
        .map(|(_, key)| *key)
}

/// The rule keys a spec names as `key=value` items (aliases as their
/// canonical key): the rules a `Variant` value sets itself, rather than
/// through a preset.
pub fn named_rule_keys(spec: &str) -> Vec<&'static str> {
    spec.split(',')
        .filter_map(|item| item.split_once('='))
        .filter_map(|(key, _)| {
            let key = key.trim().to_ascii_lowercase();
            let key = match key.as_str() {
                "columns" => "cols",
                "win_condition" => "win",
                other => other,
            };
            RULE_OPTIONS
                .iter()
                .find(|(_, k)| *k == key)
                .map(|(_, k)| *k)
        })
        .collect()
}

/// A rule's value in `variant`, as `Variant::set` reads it.
pub fn rule_text(variant: &Variant, key: &str) -> String {
    rule_value(variant, key)
}

/// A rule's current value as the text `Variant::set` reads: taken from
/// `Variant::spec` so the two spellings can never drift apart.
fn rule_value(variant: &Variant, key: &str) -> String {
    variant
        .spec()
        .split(',')
        .find_map(|item| item.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_default()
        .to_string()
}

fn names<T: std::fmt::Display>(all: &[T]) -> Vec<String> {
    all.iter().map(ToString::to_string).collect()
}

fn combo(name: &str, default: String, vars: &[String]) -> OptionDef {
    let vars: Vec<&str> = vars.iter().map(String::as_str).collect();
    OptionDef::combo(name, default, &vars)
}

/// Switches search features on or off (`-lmr,+killers`): for measuring a
/// feature with the match runner against the default engine.
pub const SEARCH_FEATURES: &str = "SearchFeatures";
/// The search's tunable numbers as `name=value` items over the defaults
/// (`lmr_divisor=200,aspiration_delta=40`): what `yote spsa` tunes.
pub const SEARCH_PARAMS: &str = "SearchParams";
pub const SKILL_LEVEL: &str = "Skill Level";

/// Endgame table directories, separated as in Stockfish's SyzygyPath.
pub const TABLEBASE_PATH: &str = "TablebasePath";
/// Tables are probed only in positions of at most this many pieces.
pub const TABLEBASE_PIECES: &str = "TablebasePieces";
/// The search probes positions of the largest piece count only with at
/// least this many plies left to search (Stockfish's SyzygyProbeDepth);
/// 0 probes every node, the quiescence search included.
pub const TABLEBASE_PROBE_DEPTH: &str = "TablebaseProbeDepth";
/// MiB of decoded table blocks the process keeps.
pub const TABLEBASE_CACHE: &str = "TablebaseCache";

/// Why a `setoption` was refused; the options and rules stay as they were.
/// `Display` is the protocol's error line (after `error: `).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetOptionError {
    /// The option table refused the value (type, range, missing value).
    Value(OptionError),
    Features(FeatureError),
    Params(ParamError),
    /// A rule spec such as `,` that names no preset and no rule.
    NamesNoRule {
        option: String,
        spec: String,
    },
    /// The rules the option would set are not valid rules.
    Rules {
        option: String,
        error: RulesError,
    },
}

impl fmt::Display for SetOptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetOptionError::Value(e) => e.fmt(f),
            SetOptionError::Features(e) => e.fmt(f),
            SetOptionError::Params(e) => write!(f, "option {SEARCH_PARAMS}: {e}"),
            SetOptionError::NamesNoRule { option, spec } => {
                write!(f, "option {option}: {spec:?} names no preset and no rule")
            }
            SetOptionError::Rules { option, error } => write!(f, "option {option}: {error}"),
        }
    }
}

impl std::error::Error for SetOptionError {}

/// Why new rules could not be installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    Invalid(VariantError),
    /// The rule options could not show the rules (their ranges are narrower).
    NotShown(OptionError),
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::Invalid(e) => e.fmt(f),
            RulesError::NotShown(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RulesError {}

/// Rejects a value the option table would store but the engine cannot use.
pub fn check_engine_option(name: &str, value: Option<&str>) -> Result<(), SetOptionError> {
    if name == SEARCH_FEATURES {
        Features::parse(value.unwrap_or_default()).map_err(SetOptionError::Features)?;
    }
    if name == SEARCH_PARAMS {
        SearchParams::parse(value.unwrap_or_default()).map_err(SetOptionError::Params)?;
    }
    Ok(())
}

fn engine_options() -> Vec<OptionDef> {
    let d = SearchOptions::default();
    let styles: Vec<String> = STYLES.iter().map(|(n, _)| n.to_string()).collect();
    vec![
        OptionDef::spin("Hash", d.hash_mb as i64, 1, MAX_HASH_MB),
        OptionDef::spin("Threads", d.threads as i64, 1, 64),
        OptionDef::spin("MultiPV", d.multipv as i64, 1, 64),
        OptionDef::spin("MoveOverhead", d.move_overhead_ms as i64, 0, 5000),
        OptionDef::check(PONDER, false),
        OptionDef::check("UCI_LimitStrength", d.limit_strength),
        OptionDef::spin("UCI_Elo", i64::from(d.elo), MIN_ELO.into(), MAX_ELO.into()),
        OptionDef::spin(SKILL_LEVEL, d.skill_level.into(), 0, MAX_LEVEL.into()),
        OptionDef::spin("Seed", d.seed as i64, 0, i64::from(i32::MAX)),
        combo("Style", "search".to_string(), &styles),
        OptionDef::string(SEARCH_FEATURES, ""),
        OptionDef::string(SEARCH_PARAMS, ""),
        OptionDef::string(TABLEBASE_PATH, "<empty>"),
        OptionDef::spin(TABLEBASE_PIECES, 7, 0, 32),
        OptionDef::spin(TABLEBASE_PROBE_DEPTH, d.tb_probe_depth.into(), 0, 100),
        OptionDef::spin(
            TABLEBASE_CACHE,
            d.tb_cache_mb as i64,
            1,
            tablebase::mapped::MAX_CACHE_MB as i64,
        ),
        OptionDef::button(CLEAR_HASH),
    ]
}

fn rule_options() -> Vec<OptionDef> {
    let std = Variant::STANDARD;
    let presets: Vec<String> = Variant::PRESETS
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    let mut defs = vec![
        combo(VARIANT, "standard".to_string(), &presets),
        OptionDef::string(VARIANT_SPEC, "standard"),
        combo(UCI_VARIANT, "standard".to_string(), &presets),
    ];
    for (name, key) in RULE_OPTIONS {
        let default = rule_value(&std, key);
        defs.push(match key {
            "rows" | "cols" => OptionDef::spin(
                name,
                default.parse().unwrap_or(5),
                MIN_SIZE.into(),
                MAX_SIZE.into(),
            ),
            "pieces" => OptionDef::spin(name, i64::from(std.pieces), 1, MAX_PIECES.into()),
            "no_capture_draw" => OptionDef::spin(name, 0, 0, MAX_NO_CAPTURE_DRAW.into()),
            "repetition_draw" => OptionDef::spin(name, 0, 0, MAX_REPETITION_DRAW.into()),
            "removal" => combo(name, default, &names(Removal::ALL)),
            "win" => combo(name, default, &names(WinCondition::ALL)),
            "no_moves" => combo(name, default, &names(NoMoves::ALL)),
            "no_capture_outcome" => combo(name, default, &names(NoCaptureOutcome::ALL)),
            _ => OptionDef::check(name, default == "true"),
        });
    }
    defs
}

/// Every option, engine options first, at its default.
pub fn option_table() -> OptionTable {
    let mut defs = engine_options();
    defs.extend(rule_options());
    OptionTable::new(defs).expect("the engine's option definitions are valid (unit-tested)")
}

/// The text `Variant::set` takes for a parsed option value.
pub fn value_text(value: &OptionValue) -> String {
    match value {
        OptionValue::Bool(b) => b.to_string(),
        OptionValue::Int(n) => n.to_string(),
        OptionValue::Text(t) => t.clone(),
        OptionValue::Pressed => String::new(),
    }
}

/// Reads a `Variant` value: a preset name or any rule spec `Variant::from_spec`
/// reads — in particular the one `info string variant` prints — applied on
/// top of `standard`. One option thus sets every rule, whatever order a
/// client sends its options in.
pub fn variant_value(option: &str, value: Option<&str>) -> Result<Variant, SetOptionError> {
    let spec = value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SetOptionError::Value(OptionError::MissingValue(option.to_string())))?;
    // `Variant::from_spec` skips empty items, so `,` alone would read as
    // standard: a value that names nothing is as empty as no value.
    if spec.split(',').all(|item| item.trim().is_empty()) {
        return Err(SetOptionError::NamesNoRule {
            option: option.to_string(),
            spec: spec.to_string(),
        });
    }
    Variant::from_spec(spec).map_err(|e| invalid_rules(option, RulesError::Invalid(e)))
}

/// The error of an option whose rules are refused.
pub fn invalid_rules(option: &str, error: RulesError) -> SetOptionError {
    SetOptionError::Rules {
        option: option.to_string(),
        error,
    }
}

/// The warning for a `Variant` value that switched off or changed a rule no
/// preset sets (NoCaptureDraw, NoCaptureOutcome, RepetitionDraw) without
/// naming it: `NoCaptureDraw 100` then `Variant hand-removal` loses the draw
/// rule, which must not pass silently. It says how to keep the rule.
pub fn variant_reset_warning(
    option: &str,
    old: &Variant,
    new: &Variant,
    spec: &str,
) -> Option<String> {
    let named: Vec<String> = spec
        .split(',')
        .filter_map(|item| item.split_once('='))
        .map(|(key, _)| key.trim().to_ascii_lowercase())
        .collect();
    let lost: Vec<(&str, &str, String, String)> = RULE_OPTIONS
        .iter()
        .filter(|(_, key)| HISTORY_KEYS.contains(key) && !named.iter().any(|n| n == key))
        .map(|&(name, key)| (name, key, rule_value(old, key), rule_value(new, key)))
        .filter(|(_, _, before, after)| before != after)
        .collect();
    if lost.is_empty() {
        return None;
    }
    let changes: Vec<String> = lost
        .iter()
        .map(|(name, _, before, after)| format!("{name} {before} -> {after}"))
        .collect();
    let keep: String = lost
        .iter()
        .map(|(_, key, before, _)| format!(",{key}={before}"))
        .collect();
    let them = if lost.len() == 1 { "it" } else { "them" };
    Some(format!(
        "warning: {option} sets every rule and reset {}; to keep {them}, name {them} in the value: setoption name {option} value {}{keep}",
        changes.join(", "),
        spec.trim()
    ))
}

/// Makes the rule options, `VariantSpec` (and the `Variant` combos, when
/// the rules equal a preset) show `variant`.
pub fn sync_rule_options(table: &mut OptionTable, variant: &Variant) -> Result<(), OptionError> {
    for (name, key) in RULE_OPTIONS {
        table.set(name, Some(&rule_value(variant, key)))?;
    }
    table.set(VARIANT_SPEC, Some(&variant_spec(variant)))?;
    if let Some(preset) = variant.preset_name() {
        table.set(VARIANT, Some(preset))?;
        table.set(UCI_VARIANT, Some(preset))?;
    }
    Ok(())
}

/// The searcher's settings as the table holds them.
// The search API may grow fields (additively); they keep their defaults.
#[allow(clippy::needless_update)]
pub fn search_options(table: &OptionTable) -> SearchOptions {
    let d = SearchOptions::default();
    let int = |name: &str, default: u64| {
        table
            .get_int(name)
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(default)
    };
    let style = table
        .get_text("Style")
        .and_then(|s| STYLES.iter().find(|(n, _)| *n == s))
        .map_or(d.style, |(_, style)| *style);
    SearchOptions {
        hash_mb: int("Hash", d.hash_mb as u64) as usize,
        threads: int("Threads", d.threads as u64) as usize,
        multipv: int("MultiPV", d.multipv as u64) as usize,
        move_overhead_ms: int("MoveOverhead", d.move_overhead_ms),
        style,
        limit_strength: table
            .get_bool("UCI_LimitStrength")
            .unwrap_or(d.limit_strength),
        elo: int("UCI_Elo", d.elo.into()) as u32,
        skill_level: int(SKILL_LEVEL, d.skill_level.into()) as u32,
        seed: int("Seed", d.seed),
        // Checked when set (`check_engine_option`), so a stored text parses.
        features: Features::parse(table.get_text(SEARCH_FEATURES).unwrap_or_default())
            .unwrap_or_default(),
        params: SearchParams::parse(table.get_text(SEARCH_PARAMS).unwrap_or_default())
            .unwrap_or_default(),
        tb_probe_depth: int(TABLEBASE_PROBE_DEPTH, d.tb_probe_depth as u64) as i32,
        tb_cache_mb: int(TABLEBASE_CACHE, d.tb_cache_mb as u64) as usize,
        ..d.clone()
    }
}

/// The spec a GUI can hand back to `Variant::from_spec`: the preset name when
/// the rules equal one (for people), then every rule spelled out (for
/// programs, so nothing depends on knowing the presets).
pub fn variant_spec(variant: &Variant) -> String {
    match variant.preset_name() {
        Some(name) => format!("{name},{}", variant.spec()),
        None => variant.spec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_features_switch_from_the_defaults_and_reject_bad_text() {
        let mut table = option_table();
        table.set(SEARCH_FEATURES, Some("-lmr,+killers")).unwrap();
        let features = search_options(&table).features;
        assert!(!features.lmr && features.killers && features.tt);
        assert_ne!(features, Features::default());
        for bad in ["lmr", "-nosuch", "+"] {
            assert!(
                check_engine_option(SEARCH_FEATURES, Some(bad)).is_err(),
                "{bad}"
            );
        }
        assert!(check_engine_option(SEARCH_FEATURES, Some("")).is_ok());
        assert!(check_engine_option("Hash", Some("anything")).is_ok());
    }

    #[test]
    fn search_params_set_from_the_defaults_and_reject_bad_text() {
        let mut table = option_table();
        table
            .set(SEARCH_PARAMS, Some("lmr_divisor=200 qs_removals=3"))
            .unwrap();
        let params = search_options(&table).params;
        assert_eq!(params.get("lmr_divisor"), Some(200));
        assert_eq!(params.get("qs_removals"), Some(3));
        assert_eq!(params.get("aspiration_delta"), Some(30));
        let err = check_engine_option(SEARCH_PARAMS, Some("lmr_divisor=1")).unwrap_err();
        assert!(matches!(err, SetOptionError::Params(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "option SearchParams: search parameter lmr_divisor=1 is outside 100..500"
        );
        assert!(check_engine_option(SEARCH_PARAMS, Some("")).is_ok());
        assert!(check_engine_option(SEARCH_PARAMS, None).is_ok());
    }

    #[test]
    fn table_builds_with_standard_defaults() {
        let table = option_table();
        assert_eq!(search_options(&table), SearchOptions::default());
        assert_eq!(table.get_int("Rows"), Some(5));
        assert_eq!(table.get_int("columns"), Some(6));
        assert_eq!(table.get_text("Removal"), Some("board"));
        assert_eq!(table.get_bool("MultiJump"), Some(false));
        assert_eq!(table.get_text("Variant"), Some("standard"));
    }

    #[test]
    fn sync_shows_a_preset() {
        let mut table = option_table();
        let classic = Variant::preset("classic").unwrap();
        sync_rule_options(&mut table, &classic).unwrap();
        assert_eq!(table.get_text("WinCondition"), Some("capture-all"));
        assert_eq!(table.get_bool("ThreeDraw"), Some(true));
        assert_eq!(table.get_text("Variant"), Some("classic"));
        assert_eq!(table.get_text("UCI_Variant"), Some("classic"));
        assert_eq!(
            table.get_text("VariantSpec"),
            Some(variant_spec(&classic).as_str())
        );
    }

    #[test]
    fn variant_value_takes_presets_and_specs_exactly() {
        assert_eq!(
            variant_value(VARIANT, Some("classic")),
            Ok(Variant::preset("classic").unwrap())
        );
        let v = variant_value(VARIANT, Some(" hand-removal, no_capture_draw=100 ")).unwrap();
        assert_eq!(v.removal, Removal::BoardOrHand);
        assert_eq!(v.no_capture_draw, 100);
        // Rules the value does not name are standard's, whatever came before.
        assert_eq!(
            variant_value(VARIANT, Some("multi_jump=true"))
                .unwrap()
                .rows,
            5
        );
        for bad in [
            None,
            Some(""),
            Some("  "),
            Some(","),
            Some(" , ,"),
            Some("chess"),
            Some("rows=2"),
            Some("x=1"),
        ] {
            assert!(variant_value(VARIANT, bad).is_err(), "{bad:?}");
        }
        let err = variant_value(VARIANT, Some("")).unwrap_err();
        assert_eq!(
            err,
            SetOptionError::Value(OptionError::MissingValue(VARIANT.to_string()))
        );
        assert_eq!(err.to_string(), "option Variant needs a value");
        assert!(matches!(
            variant_value(VARIANT, Some(" , ")),
            Err(SetOptionError::NamesNoRule { .. })
        ));
    }

    #[test]
    fn variant_warns_only_about_unnamed_history_rules_it_changes() {
        let old = Variant::from_spec("6x6,no_capture_draw=100,repetition_draw=3").unwrap();
        let new = variant_value(VARIANT, Some("hand-removal")).unwrap();
        let warning = variant_reset_warning(VARIANT, &old, &new, "hand-removal").unwrap();
        assert!(
            warning.contains("NoCaptureDraw 100 -> 0, RepetitionDraw 3 -> 0; to keep them"),
            "{warning}"
        );
        assert!(
            warning.ends_with("value hand-removal,no_capture_draw=100,repetition_draw=3"),
            "{warning}"
        );
        // Rows changed too, but a preset sets it: that is what was asked.
        assert!(!warning.contains("Rows"));
        let spec = "hand-removal,no_capture_draw=100,repetition_draw=0";
        assert_eq!(
            variant_reset_warning(
                VARIANT,
                &old,
                &variant_value(VARIANT, Some(spec)).unwrap(),
                spec
            ),
            None
        );
        assert_eq!(variant_reset_warning(VARIANT, &new, &new, "standard"), None);
    }

    #[test]
    fn named_rule_keys_are_canonical() {
        assert_eq!(
            named_rule_keys("6x6, Columns=5,win_condition=capture-all,x=1,no_capture_draw=3"),
            ["cols", "win", "no_capture_draw"]
        );
        assert!(named_rule_keys("all-options").is_empty());
    }

    #[test]
    fn spec_round_trips() {
        for preset in Variant::PRESETS {
            let spec = variant_spec(&preset.variant);
            assert!(spec.starts_with(preset.name));
            assert_eq!(Variant::from_spec(&spec).unwrap(), preset.variant);
        }
    }
}
