//! Categories, knowledge cards and the skill tree as admins read and write them.

use super::paging::{self, Counted};
use super::{Db, Tx, count_rows, in_tx, read};
use crate::domain::category_status::CategoryStatus;
use crate::ids::QuestionId;

// ---------------------------------------------------------------------------------------
// Categories

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CategoryRow {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub parent_id: Option<String>,
    pub sort_order: i64,
    pub status: CategoryStatus,
    pub icon: String,
    /// Non-archived questions of the category.
    pub question_count: i64,
}

/// One category with its question count (inside a write transaction).
pub async fn category_in_tx(tx: &mut Tx, id: &str) -> sqlx::Result<Option<CategoryRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, CategoryRow>(
            "SELECT c.id, c.name, c.slug, c.parent_id, c.sort_order, c.status, c.icon,
                    (SELECT count(*) FROM questions q
                     WHERE q.category_id = c.id AND q.status <> 'archived') AS question_count
             FROM categories c WHERE c.id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// A page of categories in (sort order, id) order, and the total.
pub async fn category_page(
    db: &Db,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<CategoryRow>, i64)> {
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, CategoryRow>(
            "SELECT c.id, c.name, c.slug, c.parent_id, c.sort_order, c.status, c.icon,
                    (SELECT count(*) FROM questions q
                     WHERE q.category_id = c.id AND q.status <> 'archived') AS question_count
             FROM categories c ORDER BY c.sort_order, c.id LIMIT $1 OFFSET $2",
        )
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?
    });
    let total = count_rows(db, "SELECT count(*) FROM categories").await?;
    Ok((rows, total))
}

/// Whether a category other than `except_id` has this id or this slug:
/// (id taken, slug taken).
pub async fn category_clashes(
    tx: &mut Tx,
    id: &str,
    slug: &str,
    except_id: Option<&str>,
) -> sqlx::Result<(bool, bool)> {
    let ids: i64 = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT count(*) FROM categories WHERE id = $1 AND (CAST($2 AS TEXT) IS NULL OR id <> $2)",
        )
        .bind(id)
        .bind(except_id)
        .fetch_one(ex)
        .await?
    });
    let slugs: i64 = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT count(*) FROM categories WHERE slug = $1 AND (CAST($2 AS TEXT) IS NULL OR id <> $2)",
        )
        .bind(slug)
        .bind(except_id)
        .fetch_one(ex)
        .await?
    });
    Ok((ids > 0, slugs > 0))
}

/// The recursive query counting whether `$2` is `$1` or one of its ancestors through
/// `parent_id` in `$table`: categories and skill nodes form the same kind of tree.
macro_rules! ancestry_count_sql {
    ($table:literal) => {
        concat!(
            "WITH RECURSIVE anc (id, parent_id) AS (
                 SELECT id, parent_id FROM ",
            $table,
            " WHERE id = $1
                 UNION
                 SELECT t.id, t.parent_id FROM ",
            $table,
            " t JOIN anc ON t.id = anc.parent_id
             )
             SELECT count(*) FROM anc WHERE id = $2"
        )
    };
}

/// Runs an [`ancestry_count_sql!`] query.
async fn in_ancestry(
    tx: &mut Tx,
    sql: &'static str,
    start: &str,
    ancestor: &str,
) -> sqlx::Result<bool> {
    let n: i64 = in_tx!(tx, |ex| {
        sqlx::query_scalar(sql)
            .bind(start)
            .bind(ancestor)
            .fetch_one(ex)
            .await?
    });
    Ok(n > 0)
}

/// Whether `ancestor` is `start` or one of its ancestors through `parent_id`.
pub async fn category_in_ancestry(tx: &mut Tx, start: &str, ancestor: &str) -> sqlx::Result<bool> {
    in_ancestry(tx, ancestry_count_sql!("categories"), start, ancestor).await
}

/// The stored fields of a category.
pub struct CategoryWrite<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub slug: &'a str,
    pub parent_id: Option<&'a str>,
    pub icon: &'a str,
    pub sort_order: i64,
    pub status: CategoryStatus,
    pub now_ms: i64,
}

/// Binds a [`CategoryWrite`]'s fields to `$query`'s `$1`..`$8` (id, name, slug, parent,
/// icon, order, status, instant): the insert and the update use the same numbering.
macro_rules! bind_category_write {
    ($query:expr, $c:expr) => {
        $query
            .bind($c.id)
            .bind($c.name)
            .bind($c.slug)
            .bind($c.parent_id)
            .bind($c.icon)
            .bind($c.sort_order)
            .bind($c.status)
            .bind($c.now_ms)
    };
}

pub async fn insert_category(tx: &mut Tx, c: &CategoryWrite<'_>) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        bind_category_write!(
            sqlx::query(
                "INSERT INTO categories (id, name, slug, parent_id, icon, sort_order, status,
                                         created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
            ),
            c
        )
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

pub async fn update_category(tx: &mut Tx, c: &CategoryWrite<'_>) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        bind_category_write!(
            sqlx::query(
                "UPDATE categories SET name = $2, slug = $3, parent_id = $4, icon = $5,
                                       sort_order = $6, status = $7, updated_at = $8
                 WHERE id = $1",
            ),
            c
        )
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

// ---------------------------------------------------------------------------------------
// Knowledge cards

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CardRow {
    pub id: String,
    pub question_id: QuestionId,
    pub title: Option<String>,
    pub summary: String,
    pub deep_dive: Option<String>,
    pub source_ref: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A page of cards, newest first, and the total ([`paging`]).
pub async fn card_page(db: &Db, limit: i64, offset: i64) -> sqlx::Result<(Vec<CardRow>, i64)> {
    paging::newest_first(
        db,
        Counted::KnowledgeCards,
        "SELECT id, question_id, title, summary, deep_dive, source_ref, created_at, updated_at
         FROM knowledge_cards",
        limit,
        offset,
    )
    .await
}

/// The card of a question.
pub async fn card_of_question(db: &Db, question_id: &QuestionId) -> sqlx::Result<Option<CardRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, CardRow>(
            "SELECT id, question_id, title, summary, deep_dive, source_ref, created_at, updated_at
             FROM knowledge_cards WHERE question_id = $1",
        )
        .bind(question_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// One card by id.
const CARD_BY_ID: &str =
    "SELECT id, question_id, title, summary, deep_dive, source_ref, created_at, updated_at
     FROM knowledge_cards WHERE id = $1";

/// One card with its question's current version, in one statement, so an edit's guard
/// (the version) and what it edits (the card) are read together.
pub async fn card_with_version_in_tx(
    tx: &mut Tx,
    id: &str,
) -> sqlx::Result<Option<(CardRow, i64)>> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        card: CardRow,
        question_version: i64,
    }
    let row = in_tx!(tx, |ex| {
        sqlx::query_as::<_, Row>(
            "SELECT k.id, k.question_id, k.title, k.summary, k.deep_dive, k.source_ref,
                    k.created_at, k.updated_at, q.version AS question_version
             FROM knowledge_cards k JOIN questions q ON q.id = k.question_id
             WHERE k.id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    });
    Ok(row.map(|r| (r.card, r.question_version)))
}

/// One card, read outside any transaction.
pub async fn card(db: &Db, id: &str) -> sqlx::Result<Option<CardRow>> {
    read!(db, |ex| {
        sqlx::query_as::<_, CardRow>(CARD_BY_ID)
            .bind(id)
            .fetch_optional(ex)
            .await
    })
}

/// Writes a card's editable fields.
pub async fn update_card(tx: &mut Tx, c: &CardRow) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE knowledge_cards SET title = $2, summary = $3, deep_dive = $4, source_ref = $5,
                                        updated_at = $6
             WHERE id = $1",
        )
        .bind(&c.id)
        .bind(&c.title)
        .bind(&c.summary)
        .bind(&c.deep_dive)
        .bind(&c.source_ref)
        .bind(c.updated_at)
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

// ---------------------------------------------------------------------------------------
// Skill tree

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SkillNodeRow {
    pub id: String,
    pub category_id: String,
    pub title: String,
    pub parent_id: Option<String>,
    pub sort_order: i64,
    pub questions_required: i64,
    pub pass_threshold: i64,
}

/// Nodes of one category, or of every category when `category_id` is None, in category
/// order (the categories' sort order, then id), then node order.
pub async fn nodes(db: &Db, category_id: Option<&str>) -> sqlx::Result<Vec<SkillNodeRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, SkillNodeRow>(
            "SELECT n.id, n.category_id, n.title, n.parent_id, n.sort_order, n.questions_required,
                    n.pass_threshold
             FROM skill_nodes n JOIN categories c ON c.id = n.category_id
             WHERE CAST($1 AS TEXT) IS NULL OR n.category_id = $1
             ORDER BY c.sort_order, c.id, n.sort_order, n.id",
        )
        .bind(category_id)
        .fetch_all(ex)
        .await?
    }))
}

pub async fn node_in_tx(tx: &mut Tx, id: &str) -> sqlx::Result<Option<SkillNodeRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, SkillNodeRow>(
            "SELECT id, category_id, title, parent_id, sort_order, questions_required,
                    pass_threshold
             FROM skill_nodes WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// The sort order after the last node of a category (0 for the first). Added here, not
/// in SQL: after a node at `i64::MAX` the sum overflowed on PostgreSQL (a 500 for every
/// later node of the category) and was clamped on SQLite; it stays at `i64::MAX` on both.
pub async fn next_node_order(tx: &mut Tx, category_id: &str) -> sqlx::Result<i64> {
    let last: Option<i64> = in_tx!(tx, |ex| {
        sqlx::query_scalar("SELECT MAX(sort_order) FROM skill_nodes WHERE category_id = $1")
            .bind(category_id)
            .fetch_one(ex)
            .await?
    });
    Ok(last.map_or(0, |last| last.saturating_add(1)))
}

/// Whether `ancestor` is node `start` or one of its ancestors through `parent_id`.
pub async fn node_in_ancestry(tx: &mut Tx, start: &str, ancestor: &str) -> sqlx::Result<bool> {
    in_ancestry(tx, ancestry_count_sql!("skill_nodes"), start, ancestor).await
}

/// How many nodes have `id` as parent.
pub async fn child_count(tx: &mut Tx, id: &str) -> sqlx::Result<i64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM skill_nodes WHERE parent_id = $1")
            .bind(id)
            .fetch_one(ex)
            .await?
    }))
}

/// Binds a node's fields and the write's instant to `$query`'s `$1`..`$8` (id, category,
/// title, parent, order, questions required, pass threshold, instant): the insert and the
/// update use the same numbering.
macro_rules! bind_node_write {
    ($query:expr, $n:expr, $now_ms:expr) => {
        $query
            .bind(&$n.id)
            .bind(&$n.category_id)
            .bind(&$n.title)
            .bind(&$n.parent_id)
            .bind($n.sort_order)
            .bind($n.questions_required)
            .bind($n.pass_threshold)
            .bind($now_ms)
    };
}

pub async fn insert_node(tx: &mut Tx, n: &SkillNodeRow, now_ms: i64) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        bind_node_write!(
            sqlx::query(
                "INSERT INTO skill_nodes (id, category_id, title, parent_id, sort_order,
                                          questions_required, pass_threshold, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
            ),
            n,
            now_ms
        )
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

pub async fn update_node(tx: &mut Tx, n: &SkillNodeRow, now_ms: i64) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        bind_node_write!(
            sqlx::query(
                "UPDATE skill_nodes SET category_id = $2, title = $3, parent_id = $4, sort_order = $5,
                                        questions_required = $6, pass_threshold = $7, updated_at = $8
                 WHERE id = $1",
            ),
            n,
            now_ms
        )
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

/// Moves the children of `id` to `new_parent` and deletes `id`; returns the rows deleted.
pub async fn delete_node(
    tx: &mut Tx,
    id: &str,
    new_parent: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<u64> {
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE skill_nodes SET parent_id = $2, updated_at = $3 WHERE parent_id = $1")
            .bind(id)
            .bind(new_parent)
            .bind(now_ms)
            .execute(ex)
            .await?
            .rows_affected()
    });
    Ok(in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM skill_nodes WHERE id = $1")
            .bind(id)
            .execute(ex)
            .await?
            .rows_affected()
    }))
}
