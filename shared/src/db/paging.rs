//! Pages of the long admin lists (`page`/`limit`, fixed by the API) in work that does not
//! grow with the list where it matters most: the total is a read of the trigger-kept
//! `row_counts` (migration 0013) for an unfiltered list, and a page nearer the end than
//! the start is read from the end, in the reversed order of an index, then turned round.
//! The first and the last pages cost the same at any size; a page in the middle skips
//! at most half the list (the bound of `OFFSET` under a page-number contract).

use super::{Db, read};

/// A list's order and its exact reverse (both served by one index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    pub forward: &'static str,
    pub backward: &'static str,
}

/// How to read a page: `ORDER BY order LIMIT limit OFFSET offset`, and turn the rows
/// round when `backward`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scan {
    pub order: &'static str,
    pub limit: i64,
    pub offset: i64,
    pub backward: bool,
}

/// Rows `offset .. offset + limit` of a list of `total` rows in `order`.
pub fn scan(order: Order, total: i64, limit: i64, offset: i64) -> Scan {
    let end = offset.saturating_add(limit).min(total);
    if offset >= total {
        // past the end: nothing to read
        return Scan {
            order: order.forward,
            limit: 0,
            offset: 0,
            backward: false,
        };
    }
    let from_end = total - end;
    if from_end < offset {
        Scan {
            order: order.backward,
            limit: end - offset,
            offset: from_end,
            backward: true,
        }
    } else {
        Scan {
            order: order.forward,
            limit,
            offset,
            backward: false,
        }
    }
}

impl Scan {
    /// The rows read, in the list's order.
    pub fn in_order<T>(&self, mut rows: Vec<T>) -> Vec<T> {
        if self.backward {
            rows.reverse();
        }
        rows
    }
}

/// A list whose size `row_counts` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    AuditLog,
    Feedback,
    KnowledgeCards,
    Questions,
    /// Players neither deleted nor merged.
    LivePlayers,
}

impl Counted {
    fn name(self) -> &'static str {
        match self {
            Self::AuditLog => "audit_log",
            Self::Feedback => "feedback",
            Self::KnowledgeCards => "knowledge_cards",
            Self::Questions => "questions",
            Self::LivePlayers => "live_players",
        }
    }
}

/// A page of an unfiltered list, newest first (`created_at DESC, id DESC`, an index on
/// `(created_at, id)` serving both ends), with its kept total. `select` is the list's
/// `SELECT … FROM table` (a constant).
pub async fn newest_first<T>(
    db: &Db,
    list: Counted,
    select: &'static str,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<T>, i64)>
where
    T: Send
        + Unpin
        + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
{
    const ORDER: Order = Order {
        forward: "created_at DESC, id DESC",
        backward: "created_at, id",
    };
    let total = total(db, list).await?;
    let scan = scan(ORDER, total, limit, offset);
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(format!(
            "{select} ORDER BY {} LIMIT $1 OFFSET $2",
            scan.order
        )))
        .bind(scan.limit)
        .bind(scan.offset)
        .fetch_all(ex)
        .await?
    });
    Ok((scan.in_order(rows), total))
}

/// The number of rows of `list`.
pub async fn total(db: &Db, list: Counted) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar::<_, i64>(
            "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM row_counts WHERE name = $1",
        )
        .bind(list.name())
        .fetch_one(ex)
        .await?
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: Order = Order {
        forward: "f",
        backward: "b",
    };

    /// Which rows of 0..total a scan returns, in the list's order.
    fn rows(total: i64, limit: i64, offset: i64) -> Vec<i64> {
        let s = scan(ORDER, total, limit, offset);
        let list: Vec<i64> = if s.backward {
            (0..total).rev().collect()
        } else {
            (0..total).collect()
        };
        let read: Vec<i64> = list
            .into_iter()
            .skip(usize::try_from(s.offset).unwrap())
            .take(usize::try_from(s.limit).unwrap())
            .collect();
        s.in_order(read)
    }

    #[test]
    fn every_page_holds_the_rows_offset_would() {
        for total in 0..40 {
            for limit in 1..8 {
                for offset in (0..45).step_by(usize::try_from(limit).unwrap()) {
                    let expected: Vec<i64> = (offset..(offset + limit).min(total)).collect();
                    assert_eq!(
                        rows(total, limit, offset),
                        expected,
                        "{total} {limit} {offset}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_last_page_reads_from_the_end() {
        let s = scan(ORDER, 1_000_000, 20, 999_980);
        assert_eq!((s.order, s.offset, s.limit, s.backward), ("b", 0, 20, true));
        let partial = scan(ORDER, 1_000_005, 20, 1_000_000);
        assert_eq!((partial.offset, partial.limit), (0, 5));
        let first = scan(ORDER, 1_000_000, 20, 0);
        assert_eq!((first.order, first.offset, first.backward), ("f", 0, false));
    }
}
