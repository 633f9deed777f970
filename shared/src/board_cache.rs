//! What the leaderboards remember for at most [`BoardCache::MAX_AGE`] per process: each
//! board's size (the pagination total; counting it scans the board's whole index range)
//! and its pages (every player of a region reads the same top page). This process
//! forgets everything as soon as it writes weekly rows, moves a player's region, merges
//! or deletes a player, so its own changes show at once; changes other processes make
//! show within `MAX_AGE`. Own ranks (`GET /v1/leaderboards/me`) are never cached.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::db::leaderboard::EntryRow;

/// (week, board)
type BoardKey = (String, String);
/// (week, board, limit, offset)
type PageKey = (String, String, i64, i64);

#[derive(Default)]
pub struct BoardCache {
    sizes: Recent<BoardKey, i64>,
    pages: Recent<PageKey, Arc<[EntryRow]>>,
}

impl BoardCache {
    pub const MAX_AGE: Duration = Duration::from_secs(1);

    /// The remembered size of `board` in `week`, if counted less than `MAX_AGE` ago.
    pub fn size(&self, week: &str, board: &str) -> Option<i64> {
        self.sizes.get(&(week.to_string(), board.to_string()))
    }

    pub fn remember_size(&self, week: &str, board: &str, size: i64) {
        self.sizes
            .remember((week.to_string(), board.to_string()), size);
    }

    /// The remembered page, if read less than `MAX_AGE` ago.
    pub fn page(
        &self,
        week: &str,
        board: &str,
        limit: i64,
        offset: i64,
    ) -> Option<Arc<[EntryRow]>> {
        self.pages
            .get(&(week.to_string(), board.to_string(), limit, offset))
    }

    pub fn remember_page(
        &self,
        week: &str,
        board: &str,
        limit: i64,
        offset: i64,
        rows: Arc<[EntryRow]>,
    ) {
        self.pages
            .remember((week.to_string(), board.to_string(), limit, offset), rows);
    }

    /// After this process changed weekly rows or the players on them: read everything
    /// again on the next view.
    pub fn forget_all(&self) {
        self.sizes.clear();
        self.pages.clear();
    }
}

/// Values and when they were stored; a value older than [`BoardCache::MAX_AGE`] is gone.
struct Recent<K, V>(Mutex<HashMap<K, (V, Instant)>>);

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash, V: Clone> Recent<K, V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<K, (V, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &K) -> Option<V> {
        self.lock()
            .get(key)
            .filter(|(_, at)| at.elapsed() < BoardCache::MAX_AGE)
            .map(|(value, _)| value.clone())
    }

    fn remember(&self, key: K, value: V) {
        let mut map = self.lock();
        // Old weeks and boards nobody views drop out whenever the map is written.
        map.retain(|_, (_, at)| at.elapsed() < BoardCache::MAX_AGE);
        map.insert(key, (value, Instant::now()));
    }

    fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::BoardCache;
    use crate::db::leaderboard::EntryRow;

    #[test]
    fn remembers_sizes_per_week_and_board_until_forgotten() {
        let cache = BoardCache::default();
        assert_eq!(cache.size("2026-11-16", "topic:all"), None);
        cache.remember_size("2026-11-16", "topic:all", 7);
        assert_eq!(cache.size("2026-11-16", "topic:all"), Some(7));
        assert_eq!(cache.size("2026-11-16", "region:320000"), None);
        assert_eq!(cache.size("2026-11-23", "topic:all"), None);
        cache.forget_all();
        assert_eq!(cache.size("2026-11-16", "topic:all"), None);
    }

    #[test]
    fn remembers_pages_per_board_limit_and_offset_until_forgotten() {
        let cache = BoardCache::default();
        let rows: Arc<[EntryRow]> = vec![EntryRow {
            player_id: "p-1".into(),
            xp: 30,
            nickname: Some("Ada".into()),
            avatar_url: None,
        }]
        .into();
        cache.remember_page("2026-11-16", "region:310000", 20, 0, rows);
        let page = cache.page("2026-11-16", "region:310000", 20, 0).unwrap();
        assert_eq!(page[0].player_id, "p-1");
        for (board, limit, offset) in [
            ("region:310000", 20, 20),
            ("region:310000", 10, 0),
            ("topic:all", 20, 0),
        ] {
            assert!(cache.page("2026-11-16", board, limit, offset).is_none());
        }
        cache.forget_all();
        assert!(cache.page("2026-11-16", "region:310000", 20, 0).is_none());
    }
}
