//! Memory the search reads at random addresses at almost every node: the
//! hash table and the tables' recent results. Each such read is a miss of
//! the caches, and with 4 KiB pages of the TLB too. Two things make them
//! cheaper, both as Stockfish does for its hash table: starting the load
//! when a child position is made (`prefetch`), so that it overlaps the
//! work done before the child's search reads it, and huge pages
//! (`ZeroedTable`).

use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;

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

/// Types that a `ZeroedTable` may hold.
///
/// # Safety
/// All-zero bytes must be a valid value, the alignment at most a page's
/// (4 KiB), and every change made through a shared reference (atomics).
pub unsafe trait ZeroValid: Sync {}

// SAFETY: zero is a valid `AtomicU64`, aligned to 8, changed only
// atomically.
unsafe impl ZeroValid for AtomicU64 {}

/// `len` zeroed values of `T`, shared: an anonymous memory map, which the
/// operating system fills with zero pages lazily, so even a 4 GB table is
/// ready at once (`setoption name Hash` and `ucinewgame` must not hold up
/// `isready` or the next search's clock). On Linux it asks for huge pages.
pub struct ZeroedTable<T> {
    map: memmap2::MmapRaw,
    len: usize,
    values: PhantomData<T>,
}

impl<T: ZeroValid> ZeroedTable<T> {
    pub fn new(len: usize) -> ZeroedTable<T> {
        let size = len
            .max(1)
            .checked_mul(std::mem::size_of::<T>())
            .expect("table size fits in memory");
        let map = memmap2::MmapMut::map_anon(size).unwrap_or_else(|_| {
            let layout = std::alloc::Layout::from_size_align(size, std::mem::align_of::<T>())
                .expect("valid table layout");
            std::alloc::handle_alloc_error(layout)
        });
        // A hint: where huge pages are refused, small ones work as well.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        ZeroedTable {
            map: map.into(),
            len,
            values: PhantomData,
        }
    }
}

impl<T: ZeroValid> std::ops::Deref for ZeroedTable<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` values of zeroed memory owned by `self` (a map is
        // page aligned, `ZeroValid` types need no more), valid as zeros and
        // changed only through atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr().cast::<T>(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_table_starts_zeroed_and_keeps_what_is_stored() {
        let table = ZeroedTable::<AtomicU64>::new(1 << 16);
        assert_eq!(table.len(), 1 << 16);
        assert!(table.iter().all(|v| v.load(Ordering::Relaxed) == 0));
        table[12_345].store(7, Ordering::Relaxed);
        assert_eq!(table[12_345].load(Ordering::Relaxed), 7);
        assert!(ZeroedTable::<AtomicU64>::new(0).is_empty());
    }
}
