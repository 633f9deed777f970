//! How many players each weekly board holds (the leaderboard page's pagination total),
//! counted at most once per [`BoardSizes::MAX_AGE`] per process. Counting a board is a
//! scan of its whole index range on every page view otherwise. This process forgets
//! every size as soon as it adds or moves a weekly row, so its own writes show at once;
//! rows other processes add show within `MAX_AGE`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct BoardSizes {
    sizes: Mutex<HashMap<(String, String), (i64, Instant)>>,
}

impl BoardSizes {
    pub const MAX_AGE: Duration = Duration::from_secs(1);

    /// The remembered size of `board` in `week`, if counted less than `MAX_AGE` ago.
    pub fn get(&self, week: &str, board: &str) -> Option<i64> {
        let sizes = self.sizes.lock().unwrap_or_else(|e| e.into_inner());
        sizes
            .get(&(week.to_string(), board.to_string()))
            .filter(|(_, at)| at.elapsed() < Self::MAX_AGE)
            .map(|(n, _)| *n)
    }

    pub fn remember(&self, week: &str, board: &str, size: i64) {
        let mut sizes = self.sizes.lock().unwrap_or_else(|e| e.into_inner());
        // Old weeks and boards nobody views drop out whenever the map is written.
        sizes.retain(|_, (_, at)| at.elapsed() < Self::MAX_AGE);
        sizes.insert(
            (week.to_string(), board.to_string()),
            (size, Instant::now()),
        );
    }

    /// After this process wrote weekly rows: count again on the next view.
    pub fn forget_all(&self) {
        self.sizes.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::BoardSizes;

    #[test]
    fn remembers_per_week_and_board_until_forgotten() {
        let sizes = BoardSizes::default();
        assert_eq!(sizes.get("2026-11-16", "topic:all"), None);
        sizes.remember("2026-11-16", "topic:all", 7);
        assert_eq!(sizes.get("2026-11-16", "topic:all"), Some(7));
        assert_eq!(sizes.get("2026-11-16", "region:320000"), None);
        assert_eq!(sizes.get("2026-11-23", "topic:all"), None);
        sizes.forget_all();
        assert_eq!(sizes.get("2026-11-16", "topic:all"), None);
    }
}
