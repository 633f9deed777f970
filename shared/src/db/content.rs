//! `categories` and `skill_nodes` as the demo loader seeds them (questions and cards go
//! through [`super::questions`]).

use super::{Tx, in_tx};

pub struct CategoryInsert<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub slug: &'a str,
    pub icon: &'a str,
    pub sort_order: i64,
    pub now_ms: i64,
}

/// Inserts a category unless its id or slug exists; true when inserted.
pub async fn insert_category_if_absent(tx: &mut Tx, c: &CategoryInsert<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO categories (id, name, slug, icon, sort_order, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'active', $6, $6) ON CONFLICT DO NOTHING",
        )
        .bind(c.id)
        .bind(c.name)
        .bind(c.slug)
        .bind(c.icon)
        .bind(c.sort_order)
        .bind(c.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

pub struct NodeInsert<'a> {
    pub id: &'a str,
    pub category_id: &'a str,
    pub title: &'a str,
    pub parent_id: Option<&'a str>,
    pub sort_order: i64,
    pub questions_required: i64,
    pub pass_threshold: i64,
    pub now_ms: i64,
}

pub async fn insert_node_if_absent(tx: &mut Tx, n: &NodeInsert<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO skill_nodes (id, category_id, title, parent_id, sort_order,
                                      questions_required, pass_threshold, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (id) DO NOTHING",
        )
        .bind(n.id)
        .bind(n.category_id)
        .bind(n.title)
        .bind(n.parent_id)
        .bind(n.sort_order)
        .bind(n.questions_required)
        .bind(n.pass_threshold)
        .bind(n.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Counts used by the demo loader's log line and tests.
pub async fn published_question_count(db: &super::Db, category_id: &str) -> sqlx::Result<i64> {
    Ok(super::read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT count(*) FROM questions WHERE category_id = $1 AND status = 'published'",
        )
        .bind(category_id)
        .fetch_one(ex)
        .await?
    }))
}
