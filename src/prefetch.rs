//! A hint to the CPU to start loading a cache line that will be read soon.
//!
//! The search's hash table and the tables' recent-results cache are read
//! at random addresses, one miss of main memory each, at almost every node.
//! Issued when a child position is made, the load overlaps the work done
//! before the child's search reads it (Stockfish prefetches its hash table
//! entry after `do_move` for the same reason).

/// Starts loading the cache line that holds `value`. Never faults, never
/// changes a result; a no-op where the CPU has no such hint.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads nothing the program sees and cannot
        // fault; the pointer comes from a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
