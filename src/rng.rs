//! A tiny seeded generator (SplitMix64) for everything that must replay from
//! a seed: the baseline players, strength control, the match runner's
//! pairings and openings. A registry RNG may change its streams between
//! releases; SplitMix64 is fixed, fast and good enough for these choices.

#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// A generator for one purpose (`stream`) derived from a master seed, so
    /// that e.g. drawing one more opening does not shift the pairing order.
    pub fn derived(seed: u64, stream: u64) -> SplitMix64 {
        let mut base = SplitMix64(seed ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03));
        SplitMix64(base.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), by multiply-and-shift: the bias is below
    /// 2^-50 for the few hundred choices used here.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Fisher–Yates.
    /// Uniform in `0.0..1.0` (53 random bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence_and_derivation() {
        // Reference values of SplitMix64 seeded with 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let a = SplitMix64::derived(7, 1).next_u64();
        let b = SplitMix64::derived(7, 2).next_u64();
        assert_ne!(a, b);
        assert_eq!(a, SplitMix64::derived(7, 1).next_u64());
    }

    #[test]
    fn below_stays_in_range_and_repeats() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for n in 1..200 {
            let x = a.below(n);
            assert_eq!(x, b.below(n));
            assert!(x < n);
        }
    }
}
