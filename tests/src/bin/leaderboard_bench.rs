//! Leaderboard benchmark on PostgreSQL: loads 1,000,000 weekly rows into one board and
//! times a top-20 page, the own-rank lookup of the median player by SQL count and by the
//! Redis index, and an XP increment. Run by `bench/leaderboard.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use shared::config::DatabaseUrl;
use shared::db::Db;
use shared::ids::PlayerId;
use shared::rank_index::RankIndex;
use sqlx::Connection;

const WEEK: &str = "2026-11-16";
const BOARD: &str = "region:440000";
/// An instant of the benchmarked week (no row is hidden, so any instant serves).
const NOW_MS: i64 = 1_795_500_000_000;

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let p = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    format!(
        "median {:>9.1} µs   p99 {:>9.1} µs   ({} runs)",
        p(0.5).as_secs_f64() * 1e6,
        p(0.99).as_secs_f64() * 1e6,
        samples.len()
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let rows: i64 = std::env::var("ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let base = std::env::var("BENCH_DATABASE_URL").unwrap_or_else(|_| tests::postgres_base_url());
    let redis_url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let schema = "bench_leaderboard";

    let week_start_ms = shared::clock::beijing::day_start(
        chrono::NaiveDate::from_ymd_opt(2026, 11, 16).expect("a date"),
    )
    .timestamp_millis();
    let mut admin = sqlx::PgConnection::connect(&base).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE"
    )))
    .execute(&mut admin)
    .await?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&mut admin)
        .await?;
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
    let db = Db::connect(&DatabaseUrl::Postgres(url)).await?;
    db.migrate().await?;
    let Db::Postgres(pool) = &db else {
        unreachable!()
    };

    println!("loading {rows} players and weekly rows into {BOARD} …");
    let t = Instant::now();
    sqlx::query(
        "INSERT INTO players (id, nickname, is_guest, region_code, created_at, updated_at)
         SELECT 'p' || lpad(i::text, 7, '0'), 'Player ' || i, TRUE, '440000', 0, 0
         FROM generate_series(1, $1::bigint) i",
    )
    .bind(rows)
    .execute(pool)
    .await?;
    // Skewed XP (many players with little, few with a lot) and earnings spread over the week.
    sqlx::query(
        "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
         SELECT $2, $3, 'p' || lpad(i::text, 7, '0'),
                (floor(power(random(), 3) * 5000))::bigint,
                $4 + (floor(random() * 604800))::bigint * 1000
         FROM generate_series(1, $1::bigint) i",
    )
    .bind(rows)
    .bind(WEEK)
    .bind(BOARD)
    .bind(week_start_ms)
    .execute(pool)
    .await?;
    sqlx::query("VACUUM ANALYZE weekly_xp")
        .execute(pool)
        .await?;
    println!("loaded in {:.1} s", t.elapsed().as_secs_f64());

    let median: shared::db::leaderboard::BoardRow = sqlx::query_as(
        "SELECT player_id, xp, last_earned_at FROM weekly_xp WHERE week_start = $1 AND board = $2
         ORDER BY xp DESC, last_earned_at ASC, player_id DESC OFFSET $3 LIMIT 1",
    )
    .bind(WEEK)
    .bind(BOARD)
    .bind(rows / 2)
    .fetch_one(pool)
    .await?;

    let mut page = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let p = shared::db::leaderboard::page(&db, WEEK, BOARD, 20, 0, NOW_MS).await?;
        page.push(t.elapsed());
        assert_eq!(p.len(), 20);
    }
    let mut sql_rank = Vec::new();
    let mut expected = 0;
    for _ in 0..30 {
        let t = Instant::now();
        expected = shared::db::leaderboard::rank(&db, WEEK, BOARD, &median, NOW_MS).await?;
        sql_rank.push(t.elapsed());
    }

    let ranks = RankIndex::connect(&redis_url, "bench").await?;
    ranks.invalidate(WEEK, &[BOARD.to_string()]).await;
    let t = Instant::now();
    ranks.rebuild(&db, WEEK, BOARD, NOW_MS).await?;
    let rebuild = t.elapsed();
    let mut redis_rank = Vec::new();
    for _ in 0..2000 {
        let t = Instant::now();
        let r = ranks
            .rank(&db, WEEK, BOARD, &median.player_id, NOW_MS)
            .await?;
        redis_rank.push(t.elapsed());
        assert_eq!(r, Some(expected), "Redis and SQL ranks agree");
    }

    let mut increment = Vec::new();
    for i in 0..500i64 {
        let player = PlayerId::from_trusted(format!("p{:07}", 1 + (i * 7919) % rows));
        let t = Instant::now();
        let mut tx = db.begin().await?;
        let (xp, at) = shared::db::ledger::add_weekly_xp(
            &mut tx,
            WEEK,
            BOARD,
            &player,
            10,
            week_start_ms + 600_000_000 + i * 1000,
        )
        .await?
        .ok_or_else(|| anyhow::anyhow!("a seeded row is never hidden"))?;
        tx.commit().await?;
        ranks
            .apply(&[shared::rank_index::RankUpdate {
                week_start: WEEK.into(),
                board: BOARD.into(),
                player_id: player,
                xp,
                last_earned_at: at,
            }])
            .await;
        increment.push(t.elapsed());
    }

    println!();
    println!("board: {rows} rows; median player rank {expected}");
    println!("top-20 page (SQL, covering index)      {}", stats(page));
    println!("own rank at the median, SQL count      {}", stats(sql_rank));
    println!(
        "own rank at the median, Redis ZREVRANK {}",
        stats(redis_rank)
    );
    println!(
        "XP increment (upsert tx + Redis ZADD)  {}",
        stats(increment)
    );
    println!(
        "Redis set rebuilt from the database in {:.2} s",
        rebuild.as_secs_f64()
    );

    ranks.invalidate(WEEK, &[BOARD.to_string()]).await;
    db.close().await;
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
        .execute(&mut admin)
        .await?;
    Ok(())
}
