//! The rule families the table tests run through.

/// One rule set of each family, on boards small enough to check in seconds.
pub const FAMILIES: [&str; 10] = [
    "standard",
    "removal=board-or-hand",
    "removal=board-then-hand",
    "removal=none",
    "classic",
    "no_moves=more-pieces",
    "mandatory_capture=true",
    "multi_jump=true,jump_own=true",
    "bonus_turn=true",
    "all-options,mandatory_capture=true,removal=board-or-hand",
];
