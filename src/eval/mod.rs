//! How a position is judged, apart from how the search thinks: the fitted
//! terms (`terms`, the explainer behind `eval`), their weights per rule
//! family (`weights`), and the network (`nnue`). Uses the rules library only.

pub mod nnue;
pub mod terms;
pub mod weights;

pub use terms::*;
