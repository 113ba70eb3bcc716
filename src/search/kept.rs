//! What each search thread keeps from one search to the next (its
//! correction history, its evaluation cache), by thread id: like the
//! transposition table's entries, what the engine remembers of the game so
//! far, made and forgotten with them.

use std::sync::Mutex;

/// Each search thread's `T` between searches.
pub struct Kept<T> {
    by_thread: Mutex<Vec<Option<T>>>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            by_thread: Mutex::new(Vec::new()),
        }
    }
}

impl<T: Default> Kept<T> {
    /// Thread `id`'s `T` as its last search left it (a new one if none).
    pub fn take(&self, id: usize) -> T {
        let mut kept = self.by_thread.lock().unwrap_or_else(|e| e.into_inner());
        kept.get_mut(id).and_then(Option::take).unwrap_or_default()
    }

    /// Keeps thread `id`'s `T` for its next search.
    pub fn keep(&self, id: usize, value: T) {
        let mut kept = self.by_thread.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() <= id {
            kept.resize_with(id + 1, || None);
        }
        kept[id] = Some(value);
    }

    /// Forgets what every thread kept.
    pub fn clear(&mut self) {
        self.by_thread
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_thread_keeps_comes_back_to_it_until_cleared() {
        let mut kept: Kept<Vec<u32>> = Kept::default();
        let mut mine = kept.take(1);
        assert!(mine.is_empty());
        mine.push(7);
        kept.keep(1, mine);
        assert!(kept.take(0).is_empty(), "another thread's");
        let again = kept.take(1);
        assert_eq!(again, vec![7]);
        assert!(kept.take(1).is_empty(), "taken once");
        kept.keep(1, again);
        kept.clear();
        assert!(kept.take(1).is_empty());
    }
}
