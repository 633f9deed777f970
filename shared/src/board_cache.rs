//! What the leaderboards remember for at most [`BoardCache::MAX_AGE`] per process: each
//! board's size (the pagination total; counting it scans the board's whole index range)
//! and its pages (every player of a region reads the same top page). This process
//! forgets everything as soon as it writes weekly rows, moves a player's region, merges
//! or deletes a player, so its own changes show at once; changes other processes make
//! show within `MAX_AGE`. Own ranks (`GET /v1/leaderboards/me`) are never cached.
//!
//! A value is refilled once when it expires: the requests that miss meanwhile wait for
//! that one read ([`BoardCache::page_or_read`], [`BoardCache::size_or_count`]) instead
//! of each reading it too, which at thousands of views a second would be as many reads
//! as arrive during one read's latency.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Mutex as AsyncMutex;

use crate::db::leaderboard::EntryRow;

/// (week, board)
type BoardKey = (String, String);
/// (week, board, limit, offset)
type PageKey = (String, String, i64, i64);

#[derive(Default)]
pub struct BoardCache {
    sizes: Recent<BoardKey, i64>,
    pages: Recent<PageKey, Arc<[EntryRow]>>,
    size_refills: Refills<BoardKey>,
    page_refills: Refills<PageKey>,
}

impl BoardCache {
    pub const MAX_AGE: Duration = Duration::from_secs(1);

    /// The remembered size of `board` in `week`, if counted less than `MAX_AGE` ago.
    #[cfg(test)]
    fn size(&self, week: &str, board: &str) -> Option<i64> {
        self.sizes.get(&(week.to_string(), board.to_string()))
    }

    #[cfg(test)]
    fn remember_size(&self, week: &str, board: &str, size: i64) {
        self.sizes
            .remember((week.to_string(), board.to_string()), size);
    }

    /// The remembered page, if read less than `MAX_AGE` ago.
    #[cfg(test)]
    fn page(&self, week: &str, board: &str, limit: i64, offset: i64) -> Option<Arc<[EntryRow]>> {
        self.pages
            .get(&(week.to_string(), board.to_string(), limit, offset))
    }

    #[cfg(test)]
    fn remember_page(
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

    /// The size of `board` in `week`: remembered, or counted by `count` and
    /// remembered. Of the requests that miss at once, one counts; the rest wait for it.
    pub async fn size_or_count<E>(
        &self,
        week: &str,
        board: &str,
        count: impl Future<Output = Result<i64, E>>,
    ) -> Result<i64, E> {
        let key = (week.to_string(), board.to_string());
        get_or_read(&self.sizes, &self.size_refills, key, count).await
    }

    /// A page: remembered, or read by `read` and remembered. Of the requests that miss
    /// at once, one reads; the rest wait for it.
    pub async fn page_or_read<E>(
        &self,
        (week, board): (&str, &str),
        limit: i64,
        offset: i64,
        read: impl Future<Output = Result<Arc<[EntryRow]>, E>>,
    ) -> Result<Arc<[EntryRow]>, E> {
        let key = (week.to_string(), board.to_string(), limit, offset);
        get_or_read(&self.pages, &self.page_refills, key, read).await
    }

    /// After this process changed weekly rows or the players on them: read everything
    /// again on the next view.
    pub fn forget_all(&self) {
        self.sizes.clear();
        self.pages.clear();
    }
}

/// Values and when they were stored; a value older than [`BoardCache::MAX_AGE`] is gone.
struct Recent<K, V>(Mutex<Entries<K, V>>);

struct Entries<K, V> {
    values: HashMap<K, (V, Instant)>,
    /// How many times the values were cleared: a read that began before a clear is
    /// not remembered after it.
    generation: u64,
}

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Self(Mutex::new(Entries {
            values: HashMap::new(),
            generation: 0,
        }))
    }
}

impl<K: Eq + Hash, V: Clone> Recent<K, V> {
    fn lock(&self) -> MutexGuard<'_, Entries<K, V>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &K) -> Option<V> {
        self.lock()
            .values
            .get(key)
            .filter(|(_, at)| at.elapsed() < BoardCache::MAX_AGE)
            .map(|(value, _)| value.clone())
    }

    fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Remembers `value`, read since `generation`, unless the values were cleared since.
    fn remember_since(&self, generation: u64, key: K, value: V) {
        let mut entries = self.lock();
        if entries.generation != generation {
            return;
        }
        // Old weeks and boards nobody views drop out whenever the map is written.
        entries
            .values
            .retain(|_, (_, at)| at.elapsed() < BoardCache::MAX_AGE);
        entries.values.insert(key, (value, Instant::now()));
    }

    #[cfg(test)]
    fn remember(&self, key: K, value: V) {
        let generation = self.generation();
        self.remember_since(generation, key, value);
    }

    fn clear(&self) {
        let mut entries = self.lock();
        entries.values.clear();
        entries.generation += 1;
    }
}

/// The value of `key`: remembered, or read by `read`. One request refills a key at a
/// time; who arrives meanwhile waits for it and finds the value remembered. If that
/// read failed, each waiter reads on its own (at once, side by side), so an outage
/// costs a waiter one failed read, not one per request queued before it. A read that
/// began before [`BoardCache::forget_all`] is not remembered: who views after a write
/// reads again.
async fn get_or_read<K: Eq + Hash + Clone, V: Clone, E>(
    recent: &Recent<K, V>,
    refills: &Refills<K>,
    key: K,
    read: impl Future<Output = Result<V, E>>,
) -> Result<V, E> {
    if let Some(value) = recent.get(&key) {
        return Ok(value);
    }
    let lock = refills.lock_for(key.clone());
    let _refilling = match lock.clone().try_lock_owned() {
        Ok(guard) => Some(guard),
        Err(_) => {
            drop(lock.lock_owned().await);
            if let Some(value) = recent.get(&key) {
                return Ok(value);
            }
            None
        }
    };
    let generation = recent.generation();
    let value = read.await?;
    recent.remember_since(generation, key, value.clone());
    Ok(value)
}

/// One lock per key being refilled. A lock no request holds or waits for is dropped
/// whenever another is made, so the map is as large as the refills under way.
struct Refills<K>(Mutex<HashMap<K, Arc<AsyncMutex<()>>>>);

impl<K> Default for Refills<K> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash> Refills<K> {
    fn lock_for(&self, key: K) -> Arc<AsyncMutex<()>> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, lock| Arc::strong_count(lock) > 1);
        map.entry(key).or_default().clone()
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

    #[tokio::test]
    async fn misses_at_once_read_a_page_once_and_leave_no_lock_behind() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;

        let cache = Arc::new(BoardCache::default());
        let reads = Arc::new(AtomicUsize::new(0));
        let mut views = tokio::task::JoinSet::new();
        for _ in 0..50 {
            let (cache, reads) = (cache.clone(), reads.clone());
            views.spawn(async move {
                let read = async {
                    reads.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Ok::<_, ()>(Arc::<[EntryRow]>::from(Vec::new()))
                };
                cache
                    .page_or_read(("2026-11-16", "topic:all"), 20, 0, read)
                    .await
            });
        }
        while let Some(view) = views.join_next().await {
            assert!(view.unwrap().is_ok());
        }
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        // a failed read is remembered by nobody: the next view reads again
        let failed = cache
            .size_or_count("2026-11-16", "topic:all", async { Err("down") })
            .await;
        assert_eq!(failed, Err("down"));
        let counted = cache
            .size_or_count("2026-11-16", "topic:all", async { Ok::<_, &str>(4) })
            .await;
        assert_eq!(counted, Ok(4));
        drop(cache.page_refills.lock_for(("w".into(), "b".into(), 1, 0)));
        assert_eq!(
            cache.page_refills.0.lock().unwrap().len(),
            1,
            "only the last one"
        );
    }

    #[tokio::test]
    async fn when_the_refill_fails_its_waiters_read_side_by_side() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;

        let cache = Arc::new(BoardCache::default());
        let (reading, most_at_once) =
            (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut views = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let (cache, reading, most_at_once) =
                (cache.clone(), reading.clone(), most_at_once.clone());
            views.spawn(async move {
                let count = async {
                    let now = reading.fetch_add(1, Ordering::SeqCst) + 1;
                    most_at_once.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    reading.fetch_sub(1, Ordering::SeqCst);
                    Err::<i64, _>("down")
                };
                cache.size_or_count("2026-11-16", "topic:all", count).await
            });
        }
        while let Some(view) = views.join_next().await {
            assert_eq!(view.unwrap(), Err("down"));
        }
        // one refill failed alone; the nine that waited for it then read at once, not
        // one after another
        assert_eq!(most_at_once.load(Ordering::SeqCst), 9);
    }

    #[tokio::test]
    async fn a_page_read_before_a_write_is_not_remembered_after_it() {
        let cache = Arc::new(BoardCache::default());
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let refill = tokio::spawn({
            let cache = cache.clone();
            async move {
                let read = async {
                    released.await.ok();
                    Ok::<_, ()>(Arc::<[EntryRow]>::from(Vec::new()))
                };
                cache
                    .page_or_read(("2026-11-16", "topic:all"), 20, 0, read)
                    .await
            }
        });
        tokio::task::yield_now().await;
        // this process writes weekly rows while the page is being read
        cache.forget_all();
        release.send(()).unwrap();
        assert!(refill.await.unwrap().is_ok());
        assert!(cache.page("2026-11-16", "topic:all", 20, 0).is_none());
    }
}
