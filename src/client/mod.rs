//! Talking to engines from outside, only through the protocol: spawning an
//! engine process and reading it with bounded lines and deadlines, the
//! engine specs people write (`name=…,cmd=…,option.X=…`), time controls,
//! and the records format (with its live sidecar) that games are kept in.
//!
//! The match runner, the front end, analysis and the tuning tools all use
//! this room, so none of them reaches into another's.

pub mod clock;
pub mod engine_process;
pub mod engine_spec;
pub mod interrupt;
pub mod live;
pub mod records;

pub use clock::TimeControl;
pub use engine_spec::{engine_config, parse_clock};
