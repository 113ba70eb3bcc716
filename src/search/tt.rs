//! Lock-free transposition table shared by Lazy SMP search threads.
//!
//! Each entry is two `AtomicU64` words written and read with `Relaxed`
//! ordering, so a reader can observe one word from one write and the other
//! word from another ("torn" entry). Torn entries are rejected with the xor
//! trick: the first word is stored xor-ed with a hash of the second, so a
//! mismatched pair fails key verification.
//!
//! Layout (before the xor):
//!
//! ```text
//! check word: bits  0..48 key (low 48 bits)   data word: bits  0..32 move signature
//!             bits 48..56 depth (i8)                      bits 32..48 score (i16)
//!             bits 56..58 bound (0 = empty)               bits 48..64 static eval (i16)
//!             bits 58..64 generation
//! stored: [check ^ mix(data), data]
//! ```
//!
//! 128 bits cannot hold a full 64-bit key plus 80 bits of payload, so only
//! the low 48 key bits are verified. The bucket index comes from the *high*
//! key bits, so the two are nearly independent and a false hit needs a
//! match on roughly 48 + log2(buckets) bits.

use super::correction::CorrectionHistory;
use super::eval_cache::EvalCache;
use super::kept::Kept;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Smallest depth an entry can record; shallower depths are clamped.
pub const DEPTH_MIN: i32 = i8::MIN as i32;
/// Largest depth an entry can record; deeper depths are clamped.
pub const DEPTH_MAX: i32 = i8::MAX as i32;

const ENTRIES_PER_BUCKET: usize = 4;
const KEY_MASK: u64 = (1 << 48) - 1;
const GEN_BITS: u32 = 6;
const GEN_MASK: u8 = (1 << GEN_BITS) - 1;
/// Each generation of age costs as much as this many plies of depth when
/// choosing a victim, so stale deep entries eventually make room.
const AGE_WEIGHT: i32 = 8;
const HASHFULL_SAMPLE: usize = 1_000;

/// Kind of bound the stored score represents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Fail-low: the true score is at most `score`.
    Upper = 1,
    /// Fail-high: the true score is at least `score`.
    Lower = 2,
    /// The score is exact (PV node).
    Exact = 3,
}

impl Bound {
    fn from_bits(bits: u64) -> Option<Bound> {
        match bits & 3 {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// Opaque move signature; 0 means "no move".
    pub mv: u32,
    /// Score relative to the node (see [`score_from_tt`](super::score::score_from_tt)).
    pub score: i16,
    /// Static evaluation of the position.
    pub eval: i16,
    /// Search depth, within `DEPTH_MIN..=DEPTH_MAX`.
    pub depth: i32,
    pub bound: Bound,
    /// Generation (0..64) of the search that wrote the entry.
    pub generation: u8,
}

/// One cache line so a probe touches a single line of memory.
#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    words: [AtomicU64; 2 * ENTRIES_PER_BUCKET],
}

/// A decoded slot, including ones that do not belong to the probed key;
/// the replacement policy needs the depth and age of any slot.
#[derive(Clone, Copy)]
struct Slot {
    check: u64,
    data: u64,
}

impl Slot {
    fn load(bucket: &Bucket, i: usize) -> Slot {
        let stored = bucket.words[2 * i].load(Ordering::Relaxed);
        let data = bucket.words[2 * i + 1].load(Ordering::Relaxed);
        Slot {
            check: stored ^ mix(data),
            data,
        }
    }

    fn write(bucket: &Bucket, i: usize, check: u64, data: u64) {
        bucket.words[2 * i].store(check ^ mix(data), Ordering::Relaxed);
        bucket.words[2 * i + 1].store(data, Ordering::Relaxed);
    }

    fn bound(self) -> Option<Bound> {
        Bound::from_bits(self.check >> 56)
    }

    fn is_empty(self) -> bool {
        self.bound().is_none()
    }

    fn matches(self, key: u64) -> bool {
        !self.is_empty() && (self.check ^ key) & KEY_MASK == 0
    }

    fn depth(self) -> i32 {
        i32::from((self.check >> 48) as u8 as i8)
    }

    fn generation(self) -> u8 {
        (self.check >> 58) as u8 & GEN_MASK
    }

    fn mv(self) -> u32 {
        self.data as u32
    }

    fn entry(self) -> Option<TtEntry> {
        Some(TtEntry {
            mv: self.mv(),
            score: (self.data >> 32) as u16 as i16,
            eval: (self.data >> 48) as u16 as i16,
            depth: self.depth(),
            bound: self.bound()?,
            generation: self.generation(),
        })
    }
}

/// Bijective 64-bit mixer (SplitMix64 finaliser). A plain xor with the data
/// word would leave key verification blind to payload bits that overlap the
/// unverified metadata bits; mixing spreads every data bit over the 48
/// verified bits, so two different data words almost never cancel.
/// `mix(0) == 0`, which keeps zeroed memory decoding as empty slots.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Zeroed memory for `n` buckets, 64-byte aligned. The allocator gets large
/// zeroed blocks straight from the operating system, which maps the pages
/// lazily, so even a 4 GB table is ready at once (`setoption name Hash` and
/// `ucinewgame` must not hold up `isready` or the next search's clock). A
/// cache-line aligned zeroed allocation would not do: the system allocator
/// serves those by writing zeros over the whole block, so the block is
/// asked for with the alignment of a word and aligned by hand.
struct BucketMemory {
    base: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
    buckets: std::ptr::NonNull<Bucket>,
    len: usize,
}

// SAFETY: the memory is owned (freed once, in `drop`) and only reached as
// `&[Bucket]`, whose atomics make shared access from any thread sound.
unsafe impl Send for BucketMemory {}
unsafe impl Sync for BucketMemory {}

impl BucketMemory {
    fn zeroed(n: usize) -> BucketMemory {
        let align = std::mem::align_of::<Bucket>();
        let size = n
            .checked_mul(std::mem::size_of::<Bucket>())
            .and_then(|s| s.checked_add(align))
            .expect("table size fits in memory");
        let layout = std::alloc::Layout::from_size_align(size, 8).expect("valid table layout");
        // SAFETY: the layout has a non-zero size.
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(base) = std::ptr::NonNull::new(base) else {
            std::alloc::handle_alloc_error(layout);
        };
        let offset = base.as_ptr().align_offset(align);
        // SAFETY: `offset < align` and the block has `align` spare bytes,
        // so `n` buckets from there lie inside it.
        let first = unsafe { base.as_ptr().add(offset) }.cast::<Bucket>();
        BucketMemory {
            base,
            layout,
            buckets: std::ptr::NonNull::new(first).expect("inside a non-null block"),
            len: n,
        }
    }
}

impl std::ops::Deref for BucketMemory {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `len` aligned buckets of zeroed memory, owned by `self`; a
        // bucket is only `AtomicU64`s, for which zero bytes are a valid
        // value (0, an empty slot); shared access goes through atomics.
        unsafe { std::slice::from_raw_parts(self.buckets.as_ptr(), self.len) }
    }
}

impl Drop for BucketMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout, freed only here.
        unsafe { std::alloc::dealloc(self.base.as_ptr(), self.layout) }
    }
}

/// Frees a table's memory off the caller's thread: handing back gigabytes
/// of touched pages takes long enough to be felt by `isready`.
pub fn release_in_background<T: Send + 'static>(memory: T) {
    if std::thread::Builder::new()
        .name("free table".into())
        .spawn(move || drop(memory))
        .is_err()
    {
        log::warn!("could not start a thread to free the old table");
    }
}

/// Transposition table shared between search threads (wrap it in an `Arc`).
pub struct TranspositionTable {
    buckets: BucketMemory,
    generation: AtomicU8,
    /// The search threads' correction histories between searches: like the
    /// entries, what the search remembers of the game so far, made and
    /// forgotten with them.
    pub corrections: Kept<CorrectionHistory>,
    /// The search threads' evaluation caches between searches, the same way.
    pub eval_caches: Kept<EvalCache>,
}

impl TranspositionTable {
    /// Creates a table using about `mb` mebibytes (at least one bucket).
    pub fn new(mb: usize) -> Self {
        Self::with_buckets(Self::buckets_for(mb))
    }

    fn buckets_for(mb: usize) -> usize {
        (mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1)
    }

    fn with_buckets(n: usize) -> Self {
        TranspositionTable {
            buckets: BucketMemory::zeroed(n),
            generation: AtomicU8::new(0),
            corrections: Kept::default(),
            eval_caches: Kept::default(),
        }
    }

    /// Reallocates the table to about `mb` mebibytes, discarding all entries.
    pub fn resize(&mut self, mb: usize) {
        let fresh = Self::with_buckets(Self::buckets_for(mb));
        release_in_background(std::mem::replace(self, fresh));
    }

    /// Erases every entry and resets the generation. A fresh zeroed
    /// allocation costs next to nothing whatever the size, where writing
    /// zeros over gigabytes takes seconds; the old memory is handed back on
    /// another thread for the same reason.
    pub fn clear(&mut self) {
        let fresh = BucketMemory::zeroed(self.buckets.len());
        let old = std::mem::replace(&mut self.buckets, fresh);
        release_in_background(old);
        *self.generation.get_mut() = 0;
        self.corrections.clear();
        self.eval_caches.clear();
    }

    /// Number of entries the table can hold.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * ENTRIES_PER_BUCKET
    }

    /// Starts a new search: entries written from now on are "current" and
    /// older ones become preferred victims.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(g.wrapping_add(1) & GEN_MASK, Ordering::Relaxed);
    }

    /// Generation of the current search (0..64).
    pub fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    fn bucket(&self, key: u64) -> &Bucket {
        // High bits pick the bucket; the low 48 bits are left for verification.
        let idx = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[idx]
    }

    fn age(&self, generation: u8) -> i32 {
        i32::from(self.generation().wrapping_sub(generation) & GEN_MASK)
    }

    /// Starts loading `key`'s bucket, to be probed soon.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(self.bucket(key));
    }

    /// Looks up `key`. Returns `None` on a miss or a torn entry.
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let bucket = self.bucket(key);
        (0..ENTRIES_PER_BUCKET)
            .map(|i| Slot::load(bucket, i))
            .find(|s| s.matches(key))
            .and_then(Slot::entry)
    }

    /// Stores a search result. `score` must already be node-relative (see
    /// [`score_to_tt`](super::score::score_to_tt)); `depth` is clamped to `DEPTH_MIN..=DEPTH_MAX`.
    pub fn store(&self, key: u64, mv: u32, score: i16, eval: i16, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        let generation = self.generation();
        let depth = depth.clamp(DEPTH_MIN, DEPTH_MAX);

        let slots: [Slot; ENTRIES_PER_BUCKET] = std::array::from_fn(|i| Slot::load(bucket, i));
        let mut mv = mv;
        let target = match slots.iter().position(|s| s.matches(key)) {
            Some(i) => {
                let old = slots[i];
                let replace =
                    bound == Bound::Exact || depth >= old.depth() || old.generation() != generation;
                if !replace {
                    return;
                }
                if mv == 0 {
                    // A fail-low result has no best move; the old one is still
                    // the best ordering hint for this position.
                    mv = old.mv();
                }
                i
            }
            None => {
                let value = |s: &Slot| {
                    if s.is_empty() {
                        i32::MIN
                    } else {
                        s.depth() - AGE_WEIGHT * self.age(s.generation())
                    }
                };
                (0..ENTRIES_PER_BUCKET)
                    .min_by_key(|&i| value(&slots[i]))
                    .unwrap_or(0)
            }
        };

        let check = (key & KEY_MASK)
            | u64::from(depth as i8 as u8) << 48
            | (bound as u64) << 56
            | u64::from(generation) << 58;
        let data = u64::from(mv) | u64::from(score as u16) << 32 | u64::from(eval as u16) << 48;
        Slot::write(bucket, target, check, data);
    }

    /// Per-mille of sampled entries written during the current search,
    /// sampled from the first 1000 entries (or all, if the table is smaller).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let buckets = HASHFULL_SAMPLE
            .div_ceil(ENTRIES_PER_BUCKET)
            .min(self.buckets.len());
        let sampled = buckets * ENTRIES_PER_BUCKET;
        let used = self.buckets[..buckets]
            .iter()
            .flat_map(|b| (0..ENTRIES_PER_BUCKET).map(move |i| Slot::load(b, i)))
            .filter(|s| !s.is_empty() && s.generation() == generation)
            .count();
        (used * 1000 / sampled) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(*state)
    }

    /// Key that lands in bucket `bucket` of a table with `n` buckets, with
    /// the given low bits (used for verification).
    fn key_in(bucket: u64, n: u64, low: u64) -> u64 {
        let high = (bucket << 32) / n + 1; // top 32 bits select the bucket
        (high << 32) | (low & 0xFFFF_FFFF)
    }

    #[test]
    fn bucket_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
    }

    #[test]
    fn sizes() {
        assert_eq!(TranspositionTable::new(1).capacity(), (1 << 20) / 16);
        assert_eq!(TranspositionTable::new(0).capacity(), ENTRIES_PER_BUCKET);
        let mut tt = TranspositionTable::new(1);
        tt.resize(2);
        assert_eq!(tt.capacity(), (2 << 20) / 16);
    }

    #[test]
    fn store_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let cases = [
            (
                0x0123_4567_89AB_CDEFu64,
                0xDEAD_BEEFu32,
                -123i16,
                456i16,
                7,
                Bound::Exact,
            ),
            (
                0xFFFF_FFFF_FFFF_FFFF,
                u32::MAX,
                i16::MIN,
                i16::MAX,
                -3,
                Bound::Upper,
            ),
            (
                0x8000_0000_0000_0001,
                1,
                i16::MAX,
                i16::MIN,
                0,
                Bound::Lower,
            ),
            (0x7FFF_0000_0000_0000, 0, 31_990, -31_990, 127, Bound::Lower),
        ];
        for &(key, mv, score, eval, depth, bound) in &cases {
            tt.store(key, mv, score, eval, depth, bound);
        }
        for &(key, mv, score, eval, depth, bound) in &cases {
            let e = tt.probe(key).expect("stored entry must be found");
            assert_eq!(
                e,
                TtEntry {
                    mv,
                    score,
                    eval,
                    depth,
                    bound,
                    generation: 0
                }
            );
        }
        assert_eq!(tt.probe(0x1111_2222_3333_4444), None);
    }

    #[test]
    fn key_zero_is_not_confused_with_empty_slots() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.probe(0), None);
        tt.store(0, 5, 1, 2, 3, Bound::Upper);
        assert_eq!(tt.probe(0).map(|e| e.mv), Some(5));
    }

    #[test]
    fn depth_is_clamped() {
        let tt = TranspositionTable::new(1);
        tt.store(1, 1, 0, 0, 1000, Bound::Exact);
        tt.store(2, 1, 0, 0, -1000, Bound::Exact);
        assert_eq!(tt.probe(1).unwrap().depth, DEPTH_MAX);
        assert_eq!(tt.probe(2).unwrap().depth, DEPTH_MIN);
    }

    #[test]
    fn colliding_keys_do_not_return_each_others_data() {
        let tt = TranspositionTable::with_buckets(1);
        let a = 0x1234_0000_0000_0001;
        let b = 0x1234_0000_0000_0002; // same bucket, different verified bits
        tt.store(a, 11, 100, 10, 5, Bound::Exact);
        assert_eq!(tt.probe(b), None);
        tt.store(b, 22, 200, 20, 6, Bound::Lower);
        assert_eq!(tt.probe(a).unwrap().mv, 11);
        assert_eq!(tt.probe(b).unwrap().mv, 22);
    }

    /// Builds a table holding one slot written as (w0 of `first`, w1 of
    /// `second`), i.e. a write of `second` torn by a write of `first`.
    fn torn(
        first: impl Fn(&TranspositionTable),
        second: impl Fn(&TranspositionTable),
    ) -> TranspositionTable {
        let t1 = TranspositionTable::with_buckets(1);
        first(&t1);
        let t2 = TranspositionTable::with_buckets(1);
        second(&t2);
        let w0 = t1.buckets[0].words[0].load(Ordering::Relaxed);
        let w1 = t2.buckets[0].words[1].load(Ordering::Relaxed);
        let t = TranspositionTable::with_buckets(1);
        t.buckets[0].words[0].store(w0, Ordering::Relaxed);
        t.buckets[0].words[1].store(w1, Ordering::Relaxed);
        t
    }

    #[test]
    fn torn_entries_are_rejected() {
        let key = 0xABCD_EF01_2345_6789;
        let other = 0x1357_9BDF_0246_8ACE;
        // Same key, payload differs only in the eval (the bits that overlap
        // the unverified metadata under a plain xor scheme).
        let t = torn(
            |t| t.store(key, 7, 50, 10, 12, Bound::Exact),
            |t| t.store(key, 7, 50, 11, 3, Bound::Upper),
        );
        assert_eq!(t.probe(key), None);
        // Same key, different move.
        let t = torn(
            |t| t.store(key, 7, 50, 10, 12, Bound::Exact),
            |t| t.store(key, 8, 50, 10, 12, Bound::Exact),
        );
        assert_eq!(t.probe(key), None);
        // Different keys racing for one slot: neither may be "found".
        let t = torn(
            |t| t.store(key, 7, 50, 10, 12, Bound::Exact),
            |t| t.store(other, 9, -50, 1, 2, Bound::Lower),
        );
        assert_eq!(t.probe(key), None);
        assert_eq!(t.probe(other), None);
        // Control: identical payloads tear harmlessly and are accepted.
        let t = torn(
            |t| t.store(key, 7, 50, 10, 12, Bound::Exact),
            |t| t.store(key, 7, 50, 10, 12, Bound::Exact),
        );
        assert_eq!(t.probe(key).map(|e| e.depth), Some(12));
    }

    #[test]
    fn same_key_replacement_rules() {
        let tt = TranspositionTable::new(1);
        let key = 42;
        tt.store(key, 1, 10, 0, 8, Bound::Lower);
        // Shallower non-exact result from the same search is ignored.
        tt.store(key, 2, 20, 0, 5, Bound::Upper);
        assert_eq!(tt.probe(key).unwrap().mv, 1);
        assert_eq!(tt.probe(key).unwrap().depth, 8);
        // Exact results always replace.
        tt.store(key, 3, 30, 0, 4, Bound::Exact);
        let e = tt.probe(key).unwrap();
        assert_eq!((e.mv, e.score, e.depth, e.bound), (3, 30, 4, Bound::Exact));
        // Deeper result without a move keeps the old move.
        tt.store(key, 0, 40, 0, 9, Bound::Upper);
        let e = tt.probe(key).unwrap();
        assert_eq!((e.mv, e.score, e.depth, e.bound), (3, 40, 9, Bound::Upper));
        // An entry from an older search is replaced even by a shallower one.
        tt.new_search();
        tt.store(key, 4, 50, 0, 1, Bound::Lower);
        let e = tt.probe(key).unwrap();
        assert_eq!((e.mv, e.depth, e.generation), (4, 1, 1));
    }

    #[test]
    fn replacement_prefers_keeping_deeper_entries() {
        let n = 1;
        let tt = TranspositionTable::with_buckets(n);
        let keys: Vec<u64> = (1..=5).map(|i| key_in(0, n as u64, i)).collect();
        for (&k, d) in keys.iter().zip([10, 2, 7, 5]) {
            tt.store(k, d as u32, 0, 0, d, Bound::Exact);
        }
        tt.store(keys[4], 99, 0, 0, 3, Bound::Exact);
        assert_eq!(tt.probe(keys[1]), None, "shallowest entry is the victim");
        for k in [keys[0], keys[2], keys[3], keys[4]] {
            assert!(tt.probe(k).is_some());
        }
    }

    #[test]
    fn replacement_evicts_stale_entries_before_shallow_current_ones() {
        let tt = TranspositionTable::with_buckets(1);
        let keys: Vec<u64> = (1..=5).map(|i| key_in(0, 1, i)).collect();
        tt.store(keys[0], 1, 0, 0, 20, Bound::Exact);
        for _ in 0..3 {
            tt.new_search();
        }
        // depth 20 - 8 * 3 = -4 ranks below fresh depth-1 entries.
        for &k in &keys[1..4] {
            tt.store(k, 1, 0, 0, 1, Bound::Exact);
        }
        tt.store(keys[4], 1, 0, 0, 1, Bound::Exact);
        assert_eq!(tt.probe(keys[0]), None);
        for &k in &keys[1..] {
            assert!(tt.probe(k).is_some());
        }
    }

    #[test]
    fn empty_slots_are_used_before_evicting() {
        let tt = TranspositionTable::with_buckets(1);
        for _ in 0..10 {
            tt.new_search(); // make any mis-decoded empty slot look stale
        }
        let keys: Vec<u64> = (1..=4).map(|i| key_in(0, 1, i)).collect();
        for &k in &keys {
            tt.store(k, 1, 0, 0, -5, Bound::Upper);
        }
        for &k in &keys {
            assert!(tt.probe(k).is_some());
        }
    }

    #[test]
    fn generation_wraps_and_age_is_modular() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 1, 0, 0, 1, Bound::Exact);
        for _ in 0..63 {
            tt.new_search();
        }
        assert_eq!(tt.generation(), 63);
        assert_eq!(tt.age(0), 63);
        tt.new_search();
        assert_eq!(tt.generation(), 0);
        tt.new_search();
        assert_eq!(tt.age(63), 2);
        assert_eq!(tt.probe(7).unwrap().generation, 0);
    }

    #[test]
    fn hashfull_grows_and_resets() {
        let mut tt = TranspositionTable::new(1);
        assert_eq!(tt.hashfull(), 0);
        let mut rng = 1;
        let mut last = 0;
        for round in 0..4 {
            for _ in 0..tt.capacity() / 8 {
                tt.store(splitmix(&mut rng), 1, 0, 0, 1, Bound::Exact);
            }
            let h = tt.hashfull();
            assert!(h > last, "round {round}: {h} <= {last}");
            last = h;
        }
        assert!(last > 300 && last <= 1000);
        // Entries of older searches do not count.
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert_eq!(tt.hashfull(), 0);
        assert_eq!(tt.generation(), 0);
    }

    #[test]
    fn hashfull_on_tiny_table() {
        let tt = TranspositionTable::with_buckets(1);
        tt.store(key_in(0, 1, 1), 1, 0, 0, 1, Bound::Exact);
        assert_eq!(tt.hashfull(), 250);
    }

    #[test]
    fn clear_and_resize_discard_entries() {
        let mut tt = TranspositionTable::new(1);
        tt.store(99, 1, 0, 0, 1, Bound::Exact);
        tt.clear();
        assert_eq!(tt.probe(99), None);
        tt.store(99, 1, 0, 0, 1, Bound::Exact);
        tt.resize(1);
        assert_eq!(tt.probe(99), None);
    }

    /// Payload fully determined by (key, depth), so any mix of two writes
    /// shows up as an inconsistency.
    fn payload(key: u64, depth: i32) -> (u32, i16, i16, Bound) {
        let h = mix(key ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(h >> 8) as usize % 3];
        ((h as u32) | 1, (h >> 32) as i16, (h >> 48) as i16, bound)
    }

    #[test]
    fn concurrent_stores_never_yield_inconsistent_entries() {
        // Tiny table and key set so threads constantly fight over slots.
        let tt = Arc::new(TranspositionTable::with_buckets(4));
        let mut rng = 12345;
        let keys: Arc<Vec<u64>> = Arc::new((0..64).map(|_| splitmix(&mut rng)).collect());
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let tt = Arc::clone(&tt);
                let keys = Arc::clone(&keys);
                std::thread::spawn(move || {
                    let mut rng = t + 1;
                    let mut hits = 0u32;
                    for i in 0..100_000 {
                        let r = splitmix(&mut rng);
                        let key = keys[(r % 64) as usize];
                        let depth = ((r >> 8) % 30) as i32;
                        let (mv, score, eval, bound) = payload(key, depth);
                        tt.store(key, mv, score, eval, depth, bound);
                        if i % 1000 == 0 {
                            tt.new_search();
                        }
                        let probe_key = keys[((r >> 20) % 64) as usize];
                        if let Some(e) = tt.probe(probe_key) {
                            hits += 1;
                            let (mv, score, eval, bound) = payload(probe_key, e.depth);
                            assert_eq!((e.mv, e.score, e.eval, e.bound), (mv, score, eval, bound));
                        }
                    }
                    hits
                })
            })
            .collect();
        for h in handles {
            let hits = h.join().expect("worker panicked");
            assert!(hits > 1_000, "test did not exercise hits: {hits}");
        }
    }
}
