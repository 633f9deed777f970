//! Topic tracks and their chapter nodes, with the player's progress through them.

use std::collections::HashSet;

use serde::Serialize;
use utoipa::ToSchema;

use crate::Result;
use crate::closed_set::closed_set;
use crate::context::AppContext;
use crate::db::tracks::{NodeRow, TrackRow};
use crate::db::{self};
use crate::services::player_auth::PlayerPrincipal;

closed_set! {
    /// Where a player stands on a track's chapter: `done` or `current` (`locked` and
    /// `chest` are reserved).
    pub enum NodeStatus in "node-status" {
        Done = "done",
        Current = "current",
        Locked = "locked",
        Chest = "chest",
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackNode {
    /// The chapter's id.
    pub id: String,
    pub title: String,
    pub status: NodeStatus,
    /// The most XP a challenge on this node earns, e.g. `+50 XP`.
    pub reward: String,
    /// Questions in a challenge on this node.
    pub question_count: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Track {
    /// The category id.
    pub id: String,
    pub name: String,
    pub icon: String,
    /// Done nodes ÷ nodes, in [0, 1].
    pub progress: f64,
    pub nodes: Vec<TrackNode>,
}

fn build_track(ctx: &AppContext, t: TrackRow, nodes: &[NodeRow], done: &HashSet<String>) -> Track {
    let nodes: Vec<TrackNode> = nodes
        .iter()
        .filter(|n| n.category_id == t.id)
        .map(|n| TrackNode {
            id: n.id.clone(),
            title: n.title.clone(),
            status: if done.contains(&n.id) {
                NodeStatus::Done
            } else {
                NodeStatus::Current
            },
            reward: format!(
                "+{} XP",
                n.questions_required * ctx.settings.rules.xp_per_correct
            ),
            question_count: n.questions_required,
        })
        .collect();
    let done_count = nodes
        .iter()
        .filter(|n| n.status == NodeStatus::Done)
        .count();
    Track {
        progress: if nodes.is_empty() {
            0.0
        } else {
            done_count as f64 / nodes.len() as f64
        },
        id: t.id,
        name: t.name,
        icon: t.icon,
        nodes,
    }
}

/// `GET /v1/tracks`: three queries whatever the number of tracks and nodes.
pub async fn tracks(ctx: &AppContext, player: &PlayerPrincipal) -> Result<Vec<Track>> {
    // the catalogue may lag; the player's own progress comes from the primary
    let tracks = crate::lagging_read!(ctx, |db| db::tracks::tracks(db).await)?;
    let nodes = crate::lagging_read!(ctx, |db| db::tracks::all_nodes(db).await)?;
    let done: HashSet<String> = db::tracks::done_nodes(&ctx.db, &player.id)
        .await?
        .into_iter()
        .collect();
    Ok(tracks
        .into_iter()
        .map(|t| build_track(ctx, t, &nodes, &done))
        .collect())
}

/// `GET /v1/tracks/:trackId` (id or slug); None when there is no such track.
pub async fn track(ctx: &AppContext, player: &PlayerPrincipal, key: &str) -> Result<Option<Track>> {
    let Some(t) = crate::lagging_read!(ctx, |db| db::tracks::track(db, key).await)? else {
        return Ok(None);
    };
    let nodes = crate::lagging_read!(ctx, |db| db::tracks::nodes_of(db, &t.id).await)?;
    let done: HashSet<String> = db::tracks::done_nodes(&ctx.db, &player.id)
        .await?
        .into_iter()
        .collect();
    Ok(Some(build_track(ctx, t, &nodes, &done)))
}
