//! The clock background jobs go by: rows are aged, and weeks ended, only when both the
//! process's clock and the database's say so.

use crate::Result;
use crate::context::AppContext;
use crate::db;

/// Now, by whichever of this process's clock and the database's is behind: the instant
/// the jobs age rows against and end weeks by. A row is old, and a week over, only when
/// both clocks say so: a process whose clock runs ahead (a broken NTP, `QUIZ_CLOCK_START`
/// in the future) purges nothing still live and settles no week still being played, and
/// one whose clock is behind keeps to its own calendar (the instants it wrote are from
/// its clock). One read of the database's clock.
pub async fn cautious_now_ms(ctx: &AppContext) -> Result<i64> {
    let database = db::jobs::database_now_ms(&ctx.db).await?;
    Ok(ctx.clock.now_ms().min(database))
}

/// A job that reads rows by cursor reads only rows at least this old, so no answer still
/// being written (its instant is taken before its write commits) can land behind the
/// cursor: far longer than a write can wait for the database (SQLite's writer: 10 s busy
/// timeout).
pub const SETTLE_MS: i64 = 120_000;
