//! The question bank as admins see it: questions with their knowledge cards, filtered
//! lists, status moves, batches and imports.

use super::paging::{self, Counted, Order};
use super::{Db, Tx, in_tx, read};
use crate::domain::content_type::ContentType;
use crate::domain::question_source::QuestionSource;
use crate::domain::question_status::QuestionStatus;
use crate::ids::QuestionId;

/// A question with its card (LEFT JOIN: the card columns are null when it has none).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QuestionRow {
    pub id: QuestionId,
    pub category_id: String,
    pub stem_text: String,
    #[sqlx(try_from = "String")]
    pub content_type: ContentType,
    pub correct_answer: String,
    /// JSON array of strings.
    pub distractors: String,
    pub difficulty: i64,
    pub status: QuestionStatus,
    pub source: QuestionSource,
    pub created_at: i64,
    pub updated_at: i64,
    /// The current version (`question_versions`).
    pub version: i64,
    /// The current version's statistics summary (kept by the `question_stats` job).
    pub stats_attempts: i64,
    pub stats_correct: i64,
    /// Comma-separated flags, most serious first; NULL for none.
    pub stats_flags: Option<String>,
    /// The media it shows and its text for screen readers.
    pub media_id: Option<String>,
    pub media_alt: Option<String>,
    pub card_id: Option<String>,
    pub card_title: Option<String>,
    pub card_summary: Option<String>,
    pub card_deep_dive: Option<String>,
    pub card_source_ref: Option<String>,
}

const SELECT: &str = "SELECT q.id, q.category_id, q.stem_text, q.content_type, q.correct_answer,
        q.distractors, q.difficulty, q.status, q.source, q.created_at, q.updated_at, q.version,
        q.stats_attempts, q.stats_correct, q.stats_flags, q.media_id, q.media_alt,
        k.id AS card_id, k.title AS card_title, k.summary AS card_summary,
        k.deep_dive AS card_deep_dive, k.source_ref AS card_source_ref
 FROM questions q LEFT JOIN knowledge_cards k ON k.question_id = q.id";

/// One question with its card.
pub async fn get(db: &Db, id: &QuestionId) -> sqlx::Result<Option<QuestionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionRow>(sqlx::AssertSqlSafe(format!("{SELECT} WHERE q.id = $1")))
            .bind(id)
            .fetch_optional(ex)
            .await?
    }))
}

/// One question with its card, read inside a write transaction.
pub async fn get_in_tx(tx: &mut Tx, id: &QuestionId) -> sqlx::Result<Option<QuestionRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, QuestionRow>(sqlx::AssertSqlSafe(format!("{SELECT} WHERE q.id = $1")))
            .bind(id)
            .fetch_optional(ex)
            .await?
    }))
}

/// Filters of the admin list; `None` means "any".
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub status: Option<String>,
    pub category_id: Option<String>,
    /// Text the stem or a distractor contains, case-insensitively (`%` and `_` literal).
    pub keyword: Option<String>,
    pub difficulty: Option<i64>,
    pub source: Option<String>,
    /// Only questions whose current version has flags.
    pub flagged: bool,
}

impl ListFilter {
    /// No filter at all: the whole list, whose size `row_counts` keeps.
    fn is_empty(&self) -> bool {
        let Self {
            status,
            category_id,
            keyword,
            difficulty,
            source,
            flagged,
        } = self;
        status.is_none()
            && category_id.is_none()
            && keyword.is_none()
            && difficulty.is_none()
            && source.is_none()
            && !flagged
    }
}

/// Sort column of the admin list (a whitelist: only these reach the SQL text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    CreatedAt,
    UpdatedAt,
    Difficulty,
    /// The current version's accuracy (none: below every accuracy).
    Accuracy,
    /// The current version's attempts.
    Attempts,
    /// How serious the current version's flags are (`domain::question_stats::severity`).
    Severity,
}

impl SortBy {
    /// The list's order by this column (the id breaking ties), served by an index on
    /// `(column, id)` either way round.
    fn order(self, descending: bool) -> Order {
        let (asc, desc) = match self {
            Self::CreatedAt => ("q.created_at, q.id", "q.created_at DESC, q.id DESC"),
            Self::UpdatedAt => ("q.updated_at, q.id", "q.updated_at DESC, q.id DESC"),
            Self::Difficulty => ("q.difficulty, q.id", "q.difficulty DESC, q.id DESC"),
            Self::Accuracy => (
                "q.stats_accuracy_key, q.id",
                "q.stats_accuracy_key DESC, q.id DESC",
            ),
            Self::Attempts => ("q.stats_attempts, q.id", "q.stats_attempts DESC, q.id DESC"),
            Self::Severity => ("q.stats_severity, q.id", "q.stats_severity DESC, q.id DESC"),
        };
        if descending {
            Order {
                forward: desc,
                backward: asc,
            }
        } else {
            Order {
                forward: asc,
                backward: desc,
            }
        }
    }
}

/// The filters: `$1` status, `$2` category, `$3` the keyword's `LIKE` pattern, `$4`
/// difficulty, `$5` source; `None` matches any. The keyword's test is in the text only
/// when there is one (see [`keyword_filter`]).
const WHERE: &str = " WHERE (CAST($1 AS TEXT) IS NULL OR q.status = $1)
   AND (CAST($2 AS TEXT) IS NULL OR q.category_id = $2)
   AND (CAST($4 AS BIGINT) IS NULL OR q.difficulty = $4)
   AND (CAST($5 AS TEXT) IS NULL OR q.source = $5)";

/// The keyword's test, `$3` its `LIKE` pattern and `$fts` (SQLite) its FTS5 phrase.
///
/// Without a keyword, `$3` (NULL) is still named, so both texts bind the same
/// parameters. With one, the `LIKE` is the exact test on both engines: PostgreSQL answers
/// it from the trigram indexes on `LOWER(stem_text)` and `LOWER(distractors)`
/// (migration 0011); SQLite, when the keyword has 3 or more characters, first narrows to
/// the rows its FTS5 trigram table matches (`question_search`, a superset), and with
/// fewer reads the whole table, as PostgreSQL then does too.
fn keyword_filter(db: &Db, keyword: Option<&str>, fts: usize) -> (String, Option<String>) {
    const LIKE: &str = " AND (LOWER(q.stem_text) LIKE $3 ESCAPE '\\'
        OR LOWER(q.distractors) LIKE $3 ESCAPE '\\')";
    let Some(keyword) = keyword else {
        return (" AND CAST($3 AS TEXT) IS NULL".to_string(), None);
    };
    match (db, super::trigram_phrase(keyword)) {
        (Db::Sqlite(_), Some(phrase)) => (
            format!(
                "{LIKE} AND q.id IN (SELECT k.question_id FROM question_search_keys k
                  WHERE k.n IN (SELECT rowid FROM question_search
                                WHERE question_search MATCH ${fts}))"
            ),
            Some(phrase),
        ),
        _ => (LIKE.to_string(), None),
    }
}

/// The filter text after [`WHERE`] for `f`: its keyword's test (see [`keyword_filter`])
/// and, for `flagged`, the flagged rows.
fn filter_text(db: &Db, f: &ListFilter, fts: usize) -> (String, Option<String>) {
    let (mut text, phrase) = keyword_filter(db, f.keyword.as_deref(), fts);
    if f.flagged {
        text.push_str(" AND q.stats_flags IS NOT NULL");
    }
    (text, phrase)
}

/// Binds a [`ListFilter`] (with its keyword already a `LIKE` pattern) to [`WHERE`]'s
/// `$1`..`$5`; the page, its count and the export filter alike.
macro_rules! bind_list_filter {
    ($query:expr, $f:expr, $keyword:expr) => {
        $query
            .bind($f.status.as_deref())
            .bind($f.category_id.as_deref())
            .bind($keyword.as_deref())
            .bind($f.difficulty)
            .bind($f.source.as_deref())
    };
}

/// One page of the filtered list and the total number of matches.
pub async fn page(
    db: &Db,
    f: &ListFilter,
    sort: SortBy,
    descending: bool,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<QuestionRow>, i64)> {
    let keyword = f.keyword.as_deref().map(super::contains_pattern);
    let (page_filter, phrase) = filter_text(db, f, 8);
    let total = if f.is_empty() {
        paging::total(db, Counted::Questions).await?
    } else {
        let (count_filter, _) = filter_text(db, f, 6);
        read!(db, |ex| {
            let q = bind_list_filter!(
                sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
                    "SELECT count(*) FROM questions q{WHERE}{count_filter}"
                ))),
                f,
                keyword
            );
            super::bind_phrase!(q, phrase).fetch_one(ex).await?
        })
    };
    let scan = paging::scan(sort.order(descending), total, limit, offset);
    let rows = read!(db, |ex| {
        let q = bind_list_filter!(
            sqlx::query_as::<_, QuestionRow>(sqlx::AssertSqlSafe(format!(
                "{SELECT}{WHERE}{page_filter} ORDER BY {} LIMIT $6 OFFSET $7",
                scan.order
            ))),
            f,
            keyword
        )
        .bind(scan.limit)
        .bind(scan.offset);
        super::bind_phrase!(q, phrase).fetch_all(ex).await?
    });
    Ok((scan.in_order(rows), total))
}

/// The export's order: `(created_at, id)`, the `questions_created_order` index
/// (migration 0013), so every batch is an index seek from the last key, not an offset.
const EXPORT_ORDER: &str = "q.created_at, q.id";

/// Up to `limit` questions matching `f` whose `(created_at, id)` comes after `after`, in
/// that order: one keyset batch of the export (`None` starts at the beginning). Rows
/// created while an export runs are found if they sort after its cursor; none repeats.
pub async fn export_batch(
    db: &Db,
    f: &ListFilter,
    after: Option<(i64, &str)>,
    limit: i64,
) -> sqlx::Result<Vec<QuestionRow>> {
    let keyword = f.keyword.as_deref().map(super::contains_pattern);
    let (filter, phrase) = filter_text(db, f, 9);
    // Before the first row: no question has a smaller key than (i64::MIN, ''), so the
    // first batch runs the same statement as every other.
    let (after_at, after_id) = after.unwrap_or((i64::MIN, ""));
    Ok(read!(db, |ex| {
        let q = bind_list_filter!(
            sqlx::query_as::<_, QuestionRow>(sqlx::AssertSqlSafe(format!(
                "{SELECT}{WHERE}{filter}
                 AND (q.created_at, q.id) > (CAST($6 AS BIGINT), CAST($7 AS TEXT))
                 ORDER BY {EXPORT_ORDER} LIMIT $8"
            ))),
            f,
            keyword
        )
        .bind(after_at)
        .bind(after_id)
        .bind(limit);
        super::bind_phrase!(q, phrase).fetch_all(ex).await?
    }))
}

/// Whether any question matching `f` has media (one `EXISTS`: the CSV export's columns
/// depend on it).
pub async fn any_with_media(db: &Db, f: &ListFilter) -> sqlx::Result<bool> {
    let keyword = f.keyword.as_deref().map(super::contains_pattern);
    let (filter, phrase) = filter_text(db, f, 6);
    Ok(read!(db, |ex| {
        let q = bind_list_filter!(
            sqlx::query_scalar::<_, bool>(sqlx::AssertSqlSafe(format!(
                "SELECT EXISTS (SELECT 1 FROM questions q{WHERE}{filter}
                                 AND q.media_id IS NOT NULL)"
            ))),
            f,
            keyword
        );
        super::bind_phrase!(q, phrase).fetch_one(ex).await?
    }))
}

/// Which of `ids` are categories (one query).
pub async fn existing_category_ids(db: &Db, ids: &[String]) -> sqlx::Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT id FROM categories WHERE id IN ({})",
        super::placeholders(ids.len())
    );
    Ok(read!(db, |ex| {
        let mut q = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql.clone()));
        for id in ids {
            q = q.bind(id.as_str());
        }
        q.fetch_all(ex).await?
    }))
}

/// The status of each of `ids` that exists, read inside the transaction.
pub async fn statuses_in_tx(
    tx: &mut Tx,
    ids: &[QuestionId],
) -> sqlx::Result<Vec<(QuestionId, String)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT id, status FROM questions WHERE id IN ({})",
        super::placeholders(ids.len())
    );
    Ok(in_tx!(tx, |ex| {
        let mut q = sqlx::query_as::<_, (QuestionId, String)>(sqlx::AssertSqlSafe(sql.clone()));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(ex).await?
    }))
}

/// A question's own columns that an insert and an update both write.
pub struct QuestionFields<'a> {
    pub id: &'a QuestionId,
    pub category_id: &'a str,
    pub stem_text: &'a str,
    pub content_type: ContentType,
    pub correct_answer: &'a str,
    /// JSON array of strings.
    pub distractors_json: &'a str,
    pub difficulty: i64,
    pub status: &'a str,
}

impl QuestionFields<'_> {
    /// The options the question offers, as the pick's index carries them.
    fn option_count(&self) -> i32 {
        i32::try_from(crate::domain::skill::option_count(self.distractors_json)).unwrap_or(i32::MAX)
    }
}

/// Binds [`QuestionFields`] (id, category, stem, type, answer, distractors, difficulty,
/// status) to `$query`'s `$1`..`$8`.
macro_rules! bind_question_fields {
    ($query:expr, $q:expr) => {
        $query
            .bind($q.id)
            .bind($q.category_id)
            .bind($q.stem_text)
            .bind($q.content_type.as_str())
            .bind($q.correct_answer)
            .bind($q.distractors_json)
            .bind($q.difficulty)
            .bind($q.status)
    };
}

pub struct NewQuestion<'a> {
    pub fields: QuestionFields<'a>,
    pub source: &'a str,
    pub now_ms: i64,
}

/// Inserts a question unless its id exists; false when it did (the demo loader relies on
/// that to be idempotent; new admin questions have fresh ids).
pub async fn insert(tx: &mut Tx, q: &NewQuestion<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        bind_question_fields!(
            sqlx::query(
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                                        distractors, difficulty, status, source, pick_key,
                                        created_at, updated_at, option_count)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $10, $10, $12)
                 ON CONFLICT (id) DO NOTHING",
            ),
            q.fields
        )
        .bind(q.source)
        .bind(q.now_ms)
        .bind(crate::domain::pick::new_key())
        .bind(q.fields.option_count())
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

pub struct NewCard<'a> {
    pub id: &'a str,
    pub question_id: &'a QuestionId,
    pub title: Option<&'a str>,
    pub summary: &'a str,
    pub deep_dive: Option<&'a str>,
    pub source_ref: Option<&'a str>,
    pub now_ms: i64,
}

/// Inserts a card unless the card id, or a card of the question, exists; false when one
/// did.
pub async fn insert_card(tx: &mut Tx, c: &NewCard<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO knowledge_cards (id, question_id, title, summary, deep_dive, source_ref,
                                          created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
             ON CONFLICT DO NOTHING",
        )
        .bind(c.id)
        .bind(c.question_id)
        .bind(c.title)
        .bind(c.summary)
        .bind(c.deep_dive)
        .bind(c.source_ref)
        .bind(c.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// The full new state of a question's own columns (status included).
pub struct QuestionUpdate<'a> {
    pub fields: QuestionFields<'a>,
    /// The status read before; the update applies only while it still holds.
    pub expected_status: &'a str,
    /// The version read before; the update applies only while it still holds, so an
    /// edit judged on stale content never overwrites a newer version.
    pub expected_version: i64,
    /// The version the row gets: the one read, or the next when the content changes.
    pub version: i64,
    pub now_ms: i64,
}

/// Rewrites a question; false when its status or version changed since it was read.
pub async fn update(tx: &mut Tx, u: &QuestionUpdate<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        bind_question_fields!(
            sqlx::query(
                "UPDATE questions SET category_id = $2, stem_text = $3, content_type = $4,
                     correct_answer = $5, distractors = $6, difficulty = $7, status = $8,
                     updated_at = $9, version = $12, option_count = $13
                 WHERE id = $1 AND status = $10 AND version = $11",
            ),
            u.fields
        )
        .bind(u.now_ms)
        .bind(u.expected_status)
        .bind(u.expected_version)
        .bind(u.version)
        .bind(u.fields.option_count())
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Sets the media a question shows (`None`: none) and keeps the files' unused clocks:
/// the new file is in use; the old one, when no question uses it any more, unused from
/// `now_ms` (the `media_purge` job's clock).
pub async fn set_media(
    tx: &mut Tx,
    question_id: &QuestionId,
    media: Option<(&str, Option<&str>)>,
    old_media_id: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<()> {
    let (media_id, alt) = media.map_or((None, None), |(id, alt)| (Some(id), alt));
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE questions SET media_id = $2, media_alt = $3 WHERE id = $1")
            .bind(question_id)
            .bind(media_id)
            .bind(alt)
            .execute(&mut *ex)
            .await?;
        if let Some(id) = media_id {
            sqlx::query(
                "UPDATE media SET unused_since = NULL WHERE id = $1 AND unused_since IS NOT NULL",
            )
            .bind(id)
            .execute(&mut *ex)
            .await?;
        }
        if let Some(old) = old_media_id.filter(|old| Some(*old) != media_id) {
            sqlx::query(
                "UPDATE media SET unused_since = $2
                 WHERE id = $1 AND unused_since IS NULL
                   AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.media_id = $1)",
            )
            .bind(old)
            .bind(now_ms)
            .execute(&mut *ex)
            .await?;
        }
    });
    Ok(())
}

/// Advances a question's version from `expected` (an edit of its card alone); false when
/// the version moved since it was read. The row lock it takes orders the edit against
/// every other edit of the question.
pub async fn advance_version(
    tx: &mut Tx,
    id: &QuestionId,
    expected: i64,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE questions SET version = version + 1, updated_at = $3
             WHERE id = $1 AND version = $2",
        )
        .bind(id)
        .bind(expected)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Removes a question's card (a revert to a version without one).
pub async fn delete_card(tx: &mut Tx, question_id: &QuestionId) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM knowledge_cards WHERE question_id = $1")
            .bind(question_id)
            .execute(ex)
            .await?
            .rows_affected()
    });
    Ok(())
}

pub struct CardUpdate<'a> {
    pub id: &'a str,
    pub title: Option<&'a str>,
    pub summary: &'a str,
    pub deep_dive: Option<&'a str>,
    pub source_ref: Option<&'a str>,
    pub now_ms: i64,
}

pub async fn update_card(tx: &mut Tx, c: &CardUpdate<'_>) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE knowledge_cards SET title = $2, summary = $3, deep_dive = $4, source_ref = $5,
                 updated_at = $6
             WHERE id = $1",
        )
        .bind(c.id)
        .bind(c.title)
        .bind(c.summary)
        .bind(c.deep_dive)
        .bind(c.source_ref)
        .bind(c.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Moves one question to `to` when its status is one of `from` (a conditional write, so
/// a concurrent move cannot be overwritten) and, to publication or from draft to
/// review, when it is a text question or has its media; true when it moved.
pub async fn move_status(
    tx: &mut Tx,
    id: &QuestionId,
    from: &[&str],
    to: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    if from.is_empty() {
        return Ok(false);
    }
    // $1 id, $2 to, $3 now, then the accepted statuses.
    let list = (4..4 + from.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    // an image, audio or video question is published, or goes from draft to review,
    // only with its media (a published one can always be sent back to review)
    let sql = format!(
        "UPDATE questions SET status = $2, updated_at = $3 WHERE id = $1 AND status IN ({list})
           AND (content_type = 'text' OR media_id IS NOT NULL
                OR NOT ($2 = 'published' OR ($2 = 'reviewing' AND status = 'draft')))"
    );
    Ok(in_tx!(tx, |ex| {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
            .bind(id)
            .bind(to)
            .bind(now_ms);
        for s in from {
            q = q.bind(*s);
        }
        q.execute(ex).await?.rows_affected() == 1
    }))
}

/// Moves a question from `from` to `to` only while its current version is `version`
/// (numbers about an older version never move a newer one); true when it moved.
pub async fn move_status_at_version(
    tx: &mut Tx,
    id: &QuestionId,
    version: i64,
    from: &str,
    to: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE questions SET status = $3, updated_at = $4
             WHERE id = $1 AND version = $2 AND status = $5",
        )
        .bind(id)
        .bind(version)
        .bind(to)
        .bind(now_ms)
        .bind(from)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}
