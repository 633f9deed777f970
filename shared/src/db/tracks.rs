//! Tracks (active categories with nodes) and their skill-tree nodes as players see
//! them, with the nodes a player has done.

use super::{Db, read};
use crate::ids::PlayerId;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TrackRow {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub icon: String,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct NodeRow {
    pub id: String,
    pub category_id: String,
    pub title: String,
    pub sort_order: i64,
    pub questions_required: i64,
    pub pass_threshold: i64,
}

/// Active categories with at least one node, in order.
pub async fn tracks(db: &Db) -> sqlx::Result<Vec<TrackRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, TrackRow>(
            "SELECT c.id, c.name, c.slug, c.icon FROM categories c
             WHERE c.status = 'active' AND EXISTS (SELECT 1 FROM skill_nodes n WHERE n.category_id = c.id)
             ORDER BY c.sort_order, c.id",
        )
        .fetch_all(ex)
        .await?
    }))
}

/// One track by category id or slug.
pub async fn track(db: &Db, id_or_slug: &str) -> sqlx::Result<Option<TrackRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, TrackRow>(
            "SELECT c.id, c.name, c.slug, c.icon FROM categories c
             WHERE (c.id = $1 OR c.slug = $1) AND c.status = 'active'
               AND EXISTS (SELECT 1 FROM skill_nodes n WHERE n.category_id = c.id)
             ORDER BY CASE WHEN c.id = $1 THEN 0 ELSE 1 END
             LIMIT 1",
        )
        .bind(id_or_slug)
        .fetch_optional(ex)
        .await?
    }))
}

/// Every node of every active track, in track then node order.
pub async fn all_nodes(db: &Db) -> sqlx::Result<Vec<NodeRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, NodeRow>(
            "SELECT n.id, n.category_id, n.title, n.sort_order, n.questions_required, n.pass_threshold
             FROM skill_nodes n JOIN categories c ON c.id = n.category_id
             WHERE c.status = 'active'
             ORDER BY n.category_id, n.sort_order, n.id",
        )
        .fetch_all(ex)
        .await?
    }))
}

pub async fn nodes_of(db: &Db, track_id: &str) -> sqlx::Result<Vec<NodeRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, NodeRow>(
            "SELECT n.id, n.category_id, n.title, n.sort_order, n.questions_required, n.pass_threshold
             FROM skill_nodes n WHERE n.category_id = $1 ORDER BY n.sort_order, n.id",
        )
        .bind(track_id)
        .fetch_all(ex)
        .await?
    }))
}

/// Ids of the nodes a player has done.
pub async fn done_nodes(db: &Db, player_id: &PlayerId) -> sqlx::Result<Vec<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT node_id FROM node_completions WHERE player_id = $1")
            .bind(player_id)
            .fetch_all(ex)
            .await?
    }))
}

/// The track a category belongs to: itself when it is a track (active, with skill
/// nodes), else its nearest such ancestor (a walk up at most 32 parents).
pub async fn track_of(db: &Db, category_id: &str) -> sqlx::Result<Option<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "WITH RECURSIVE up(id, parent_id, depth) AS (
                 SELECT id, parent_id, 0 FROM categories WHERE id = $1
                 UNION ALL SELECT c.id, c.parent_id, up.depth + 1
                 FROM categories c JOIN up ON c.id = up.parent_id WHERE up.depth < 32)
             SELECT up.id FROM up JOIN categories c ON c.id = up.id
             WHERE c.status = 'active'
               AND EXISTS (SELECT 1 FROM skill_nodes n WHERE n.category_id = up.id)
             ORDER BY up.depth LIMIT 1",
        )
        .bind(category_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// The categories whose questions a track serves: its own and its active sub-categories.
pub async fn track_categories(db: &Db, track_id: &str) -> sqlx::Result<Vec<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "WITH RECURSIVE subtree(id) AS (
                 SELECT id FROM categories WHERE id = $1
                 UNION SELECT c.id FROM categories c JOIN subtree s ON c.parent_id = s.id
                 WHERE c.status = 'active')
             SELECT id FROM subtree",
        )
        .bind(track_id)
        .fetch_all(ex)
        .await?
    }))
}
