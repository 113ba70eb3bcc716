//! Who plays whom, with which opening and colours, in which order.
//!
//! Games come in pairs: both games of a pair use the same opening with the
//! colours swapped, so an opening that favours one side cancels out (and the
//! pentanomial statistics count the pair as one sample). The schedule is a
//! pure function of its inputs and the seed.

use crate::rng::SplitMix64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every engine plays every other one (two engines: a plain match).
    RoundRobin,
    /// The first engine plays each of the others; they do not meet.
    Gauntlet,
}

/// Two engines that meet, by index; statistics are from `a`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub a: usize,
    pub b: usize,
}

/// One game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// Position in the schedule, also the game number in the records.
    pub index: usize,
    pub pairing: usize,
    /// The game pair within the pairing.
    pub round: usize,
    /// False for the pair's first game (a has White), true for the second.
    pub swapped: bool,
    pub white: usize,
    pub black: usize,
    pub opening: usize,
}

/// Share K of N of a match (`--shard K/N`, `index` = K - 1): the game pairs
/// whose number in the full schedule is K - 1 modulo N. Every machine
/// computes the same full schedule from the seed and keeps its share, so
/// shares never overlap and together are the whole match; both games of a
/// pair stay on one machine, as the pentanomial statistics need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn holds(&self, job: &Job) -> bool {
        (job.index / 2) % self.count == self.index
    }
}

pub fn pairings(engines: usize, format: Format) -> Vec<Pairing> {
    match format {
        Format::Gauntlet => (1..engines).map(|b| Pairing { a: 0, b }).collect(),
        Format::RoundRobin => (0..engines)
            .flat_map(|a| (a + 1..engines).map(move |b| Pairing { a, b }))
            .collect(),
    }
}

/// `rounds` game pairs for every pairing. Round r uses opening r (cycling),
/// the same for every pairing so that a gauntlet compares like with like;
/// within a round the pairings come in a seeded order, so no engine is always
/// the first to be scheduled.
pub fn jobs(pairings: &[Pairing], rounds: usize, openings: usize, seed: u64) -> Vec<Job> {
    let mut rng = SplitMix64::derived(seed, 2);
    let mut jobs = Vec::with_capacity(pairings.len() * rounds * 2);
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..pairings.len()).collect();
        rng.shuffle(&mut order);
        for pairing in order {
            let Pairing { a, b } = pairings[pairing];
            for (swapped, white, black) in [(false, a, b), (true, b, a)] {
                jobs.push(Job {
                    index: jobs.len(),
                    pairing,
                    round,
                    swapped,
                    white,
                    black,
                    opening: round % openings.max(1),
                });
            }
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(
            pairings(2, Format::RoundRobin),
            vec![Pairing { a: 0, b: 1 }]
        );
        assert_eq!(pairings(4, Format::RoundRobin).len(), 6);
        assert_eq!(
            pairings(3, Format::Gauntlet),
            vec![Pairing { a: 0, b: 1 }, Pairing { a: 0, b: 2 }]
        );
    }

    #[test]
    fn jobs_pair_colours_share_openings_and_are_seeded() {
        let p = pairings(3, Format::RoundRobin);
        let j = jobs(&p, 4, 3, 9);
        assert_eq!(j.len(), 24);
        assert_eq!(j, jobs(&p, 4, 3, 9));
        for pair in j.chunks(2) {
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
            assert_eq!(pair[0].opening, pair[1].opening);
            assert!(!pair[0].swapped && pair[1].swapped);
        }
        assert_eq!(j[18].opening, 0, "round 3 reuses opening 0 of 3");
        assert!(j.iter().enumerate().all(|(i, job)| job.index == i));
    }

    #[test]
    fn shards_partition_the_schedule_by_pairs() {
        let j = jobs(&pairings(3, Format::RoundRobin), 5, 5, 1);
        let shares: Vec<Vec<usize>> = (0..4)
            .map(|index| {
                let shard = Shard { index, count: 4 };
                j.iter()
                    .filter(|job| shard.holds(job))
                    .map(|job| job.index)
                    .collect()
            })
            .collect();
        let mut all: Vec<usize> = shares.concat();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..j.len()).collect::<Vec<_>>(),
            "every game exactly once"
        );
        for share in &shares {
            assert!(
                share.chunks(2).all(|p| p[0] / 2 == p[1] / 2),
                "pairs stay whole"
            );
        }
    }
}
