//! Evaluation cache: the static evaluations one search thread has made,
//! so that a position met again (the next iteration of iterative
//! deepening, a transposition, quiescence standing pat where the parent
//! stood) costs one memory read instead of the network and the fitted
//! terms, which together are about two fifths of a search's time.
//!
//! An entry is one `u64`: the evaluation in the low `EVAL_BITS` bits, the
//! rest a check taken from the key's high bits, its lowest bit always set
//! so that an empty (zero) entry never matches. The key is the position's
//! key mixed with the plies without a capture (capped where the evaluation
//! stops shrinking), since the evaluation shrinks as they pass; the
//! position's key already holds the board, the hands, the side to move and
//! the removals owed. What is cached is the evaluation before the
//! correction history's share, which changes as the search learns.
//!
//! The cache answers exactly what the evaluation would, but for a key
//! collision of index and check together (one in 2^57 per probe), so
//! searches with and without it visit the same nodes. Between searches
//! the transposition table keeps it (`kept::Kept`), so the next move's
//! search finds what this one evaluated; it is emptied when the rules or
//! the evaluation change (`EvalCache::serving`), since its evaluations
//! would then be another evaluation's.

use crate::eval::PROGRESS_CAP;
use crate::rules::{Position, Variant};

/// Entries, a power of two: 1 MiB, about what a core's level-2 cache holds.
const SIZE: usize = 1 << 17;
const EVAL_BITS: u32 = 24;
const EVAL_MASK: u64 = (1 << EVAL_BITS) - 1;
/// Evaluations outside this range are not cached (none is, in practice:
/// the evaluation is in centipawns).
const EVAL_LIMIT: i32 = 1 << (EVAL_BITS - 1);

/// Which evaluation fills a cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    Network,
    Fitted,
    Material,
}

pub struct EvalCache {
    entries: Box<[u64]>,
    /// The rules and the evaluation its entries are of.
    source: Option<(Variant, Evaluation)>,
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache {
            entries: vec![0; SIZE].into_boxed_slice(),
            source: None,
        }
    }
}

impl EvalCache {
    /// This cache, for `evaluation` under `variant`: emptied unless its
    /// entries are of them already.
    pub fn serving(mut self, variant: Variant, evaluation: Evaluation) -> EvalCache {
        let source = Some((variant, evaluation));
        if self.source != source {
            self.entries.fill(0);
            self.source = source;
        }
        self
    }

    /// The cached evaluation of `pos`, if any.
    #[cfg(test)]
    pub fn get(&self, pos: &Position) -> Option<i32> {
        self.lookup(cache_key(pos.key(), pos))
    }

    /// Starts loading the entry of `pos`, whose `Position::key` is
    /// `pos_key` (see `crate::prefetch`).
    #[inline(always)]
    pub fn prefetch(&self, pos_key: u64, pos: &Position) {
        crate::prefetch::prefetch(&self.entries[slot(cache_key(pos_key, pos))]);
    }

    /// Remembers `eval` as the evaluation of `pos` (the search goes
    /// through `get_or_evaluate`; the tests set entries directly).
    #[cfg(test)]
    pub fn put(&mut self, pos: &Position, eval: i32) {
        self.store(cache_key(pos.key(), pos), eval);
    }

    /// The cached evaluation of `pos` (whose `Position::key` is
    /// `pos_key`: the search has it already), or `evaluate()`'s, cached.
    #[inline(always)]
    pub fn get_or_evaluate(
        &mut self,
        pos_key: u64,
        pos: &Position,
        evaluate: impl FnOnce() -> i32,
    ) -> i32 {
        let key = cache_key(pos_key, pos);
        if let Some(eval) = self.lookup(key) {
            return eval;
        }
        let eval = evaluate();
        self.store(key, eval);
        eval
    }

    #[inline(always)]
    fn lookup(&self, key: u64) -> Option<i32> {
        let entry = self.entries[slot(key)];
        // The low EVAL_BITS bits, sign-extended.
        let eval = ((entry << (64 - EVAL_BITS)) as i64 >> (64 - EVAL_BITS)) as i32;
        (entry & !EVAL_MASK == check(key)).then_some(eval)
    }

    #[inline(always)]
    fn store(&mut self, key: u64, eval: i32) {
        if (-EVAL_LIMIT..EVAL_LIMIT).contains(&eval) {
            self.entries[slot(key)] = check(key) | (eval as u64 & EVAL_MASK);
        }
    }
}

#[inline(always)]
fn cache_key(pos_key: u64, pos: &Position) -> u64 {
    let stale = u64::from(pos.plies_since_capture().min(PROGRESS_CAP));
    pos_key ^ (stale + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[inline(always)]
fn slot(key: u64) -> usize {
    key as usize & (SIZE - 1)
}

#[inline(always)]
fn check(key: u64) -> u64 {
    (key | 1 << EVAL_BITS) & !EVAL_MASK
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};

    fn rules() -> Rules {
        Rules::new(Variant::default()).unwrap()
    }

    #[test]
    fn an_evaluation_put_is_got_back_with_its_sign() {
        let rules = rules();
        let pos = rules.start_position();
        let mut cache = EvalCache::default();
        assert_eq!(cache.get(&pos), None);
        for eval in [0, 1, -1, 250, -3000, EVAL_LIMIT - 1, -EVAL_LIMIT] {
            cache.put(&pos, eval);
            assert_eq!(cache.get(&pos), Some(eval));
        }
    }

    #[test]
    fn a_cached_evaluation_is_not_evaluated_again() {
        let rules = rules();
        let pos = rules.start_position();
        let mut cache = EvalCache::default();
        assert_eq!(cache.get_or_evaluate(pos.key(), &pos, || 31), 31);
        assert_eq!(cache.get(&pos), Some(31));
        let again = cache.get_or_evaluate(pos.key(), &pos, || panic!("evaluated twice"));
        assert_eq!(again, 31);
    }

    #[test]
    fn an_evaluation_out_of_range_is_not_kept() {
        let rules = rules();
        let pos = rules.start_position();
        let mut cache = EvalCache::default();
        cache.put(&pos, EVAL_LIMIT);
        assert_eq!(cache.get(&pos), None);
    }

    #[test]
    fn the_plies_without_a_capture_are_part_of_the_key() {
        let rules = rules();
        let text = |stale: u32| format!("6/6/6/6/6 w 12 12 {stale} 1");
        let parse = |stale| rules.parse_position(&text(stale)).unwrap();
        let mut cache = EvalCache::default();
        cache.put(&parse(0), 7);
        assert_eq!(cache.get(&parse(0)), Some(7));
        assert_eq!(cache.get(&parse(1)), None);
        // Past the cap the evaluation no longer changes, nor does the key.
        let cap = PROGRESS_CAP;
        cache.put(&parse(cap), 9);
        assert_eq!(cache.get(&parse(cap + 50)), Some(9));
    }

    #[test]
    fn a_cache_serving_other_rules_or_another_evaluation_is_emptied() {
        let rules = rules();
        let pos = rules.start_position();
        let variant = *rules.variant();
        let mut cache = EvalCache::default().serving(variant, Evaluation::Network);
        cache.put(&pos, 42);
        let cache = cache.serving(variant, Evaluation::Network);
        assert_eq!(cache.get(&pos), Some(42), "the same source keeps it");
        let mut cache = cache.serving(variant, Evaluation::Fitted);
        assert_eq!(cache.get(&pos), None, "another evaluation empties it");
        cache.put(&pos, 42);
        let other = Variant {
            bonus_turn: !variant.bonus_turn,
            ..variant
        };
        let cache = cache.serving(other, Evaluation::Fitted);
        assert_eq!(cache.get(&pos), None, "other rules empty it");
    }
}
