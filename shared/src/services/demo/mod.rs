//! The demo content set (`DEMO_CONTENT=true`): three English tracks and two Chinese ones
//! with chapter nodes and published questions with knowledge cards, and an image track
//! of flags drawn at load time ([`flags`]). Loading is idempotent: ids are derived from
//! the content, and existing rows are left alone.

pub mod flags;

use axum::body::Bytes;
use serde::Deserialize;
use uuid::Uuid;

use crate::clock::Clock;
use crate::db::content::{CategoryInsert, NodeInsert};
use crate::db::media::NewMedia;
use crate::db::questions::{NewCard, NewQuestion, QuestionFields};
use crate::db::{self, Db};
use crate::domain::content_type::ContentType;
use crate::domain::media::MediaFormat;
use crate::ids::QuestionId;
use crate::media_store::MediaStore;
use crate::services::media::key_of;
use crate::tokens::sha256_hex;

/// The English tracks, then the Chinese ones (中国地理, 科学常识), in the same format.
const DEMO_SETS: [&str; 2] = [
    include_str!("../../../demo/demo_content.json"),
    include_str!("../../../demo/demo_content_zh.json"),
];

/// Namespace of the demo content's derived ids.
const NAMESPACE: Uuid = Uuid::from_u128(0x5f1d_2c0e_8a4b_4e7d_9c3a_1b2e_3f4a_5b6c);

#[derive(Deserialize)]
struct DemoSet {
    tracks: Vec<DemoTrack>,
}

#[derive(Deserialize)]
struct DemoTrack {
    category: DemoCategory,
    nodes: Vec<DemoNode>,
    questions: Vec<DemoQuestion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DemoCategory {
    id: String,
    name: String,
    slug: String,
    icon: String,
    sort_order: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DemoNode {
    title: String,
    sort_order: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DemoQuestion {
    stem: String,
    correct_answer: String,
    distractors: Vec<String>,
    difficulty: i64,
    knowledge_card: DemoCard,
    /// Not in the files: the flags' pictures.
    #[serde(skip)]
    media: Option<DemoMedia>,
}

/// A question's picture, already in the media store.
struct DemoMedia {
    id: String,
    bytes: i64,
    width: i64,
    height: i64,
    alt: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DemoCard {
    title: String,
    summary: String,
    deep_dive: String,
    source_ref: String,
}

fn derived_id(kind: &str, parts: &[&str]) -> String {
    let name = format!("{kind}:{}", parts.join(":"));
    Uuid::new_v5(&NAMESPACE, name.as_bytes()).to_string()
}

/// What a load added.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DemoLoad {
    pub categories: usize,
    pub nodes: usize,
    pub questions: usize,
}

/// The flags' track, its pictures put in the media store (content-addressed: putting
/// them again on the next start changes nothing).
async fn flag_track(media: &MediaStore) -> anyhow::Result<DemoTrack> {
    let mut questions = Vec::with_capacity(flags::FLAGS.len());
    for flag in flags::FLAGS {
        let png = flag.png()?;
        let id = sha256_hex(&png);
        let bytes = i64::try_from(png.len())?;
        media
            .put_bytes(
                &key_of(&id, MediaFormat::Png),
                Bytes::from(png),
                MediaFormat::Png.mime(),
            )
            .await?;
        questions.push(DemoQuestion {
            stem: flags::STEM.to_string(),
            correct_answer: flag.country.to_string(),
            distractors: flag.distractors.map(String::from).to_vec(),
            difficulty: flag.difficulty,
            knowledge_card: DemoCard {
                title: flag.card_title.to_string(),
                summary: flag.card_summary.to_string(),
                deep_dive: flag.card_deep_dive.to_string(),
                source_ref: flags::source_of(&flag),
            },
            media: Some(DemoMedia {
                id,
                bytes,
                width: i64::from(flag.width),
                height: i64::from(flag.height),
                alt: flag.alt.to_string(),
            }),
        });
    }
    Ok(DemoTrack {
        category: DemoCategory {
            id: flags::CATEGORY_ID.to_string(),
            name: flags::CATEGORY_NAME.to_string(),
            slug: flags::CATEGORY_ID.to_string(),
            icon: "flag".to_string(),
            sort_order: flags::CATEGORY_SORT_ORDER,
        },
        nodes: flags::CHAPTERS
            .iter()
            .zip(1..)
            .map(|(title, sort_order)| DemoNode {
                title: (*title).to_string(),
                sort_order,
            })
            .collect(),
        questions,
    })
}

/// A question's id: from its track and stem, or for a picture question (whose stems
/// are alike) its answer.
fn question_id(category_id: &str, q: &DemoQuestion) -> String {
    match &q.media {
        None => derived_id("question", &[category_id, &q.stem]),
        Some(_) => derived_id("question", &[category_id, "picture", &q.correct_answer]),
    }
}

/// Loads the demo set in one transaction. A media store that cannot be written leaves
/// the flags' track out (logged), to be loaded on a later start.
pub async fn load(db: &Db, clock: &Clock, media: &MediaStore) -> anyhow::Result<DemoLoad> {
    let mut tracks = Vec::new();
    for json in DEMO_SETS {
        tracks.extend(serde_json::from_str::<DemoSet>(json)?.tracks);
    }
    match flag_track(media).await {
        Ok(track) => tracks.push(track),
        Err(e) => tracing::warn!(error = %e, "demo flags left out: the media store refused them"),
    }
    let now = clock.now_ms();
    let mut added = DemoLoad::default();
    let mut tx = db.begin().await?;
    for track in &tracks {
        let c = &track.category;
        added.categories += usize::from(
            db::content::insert_category_if_absent(
                &mut tx,
                &CategoryInsert {
                    id: &c.id,
                    name: &c.name,
                    slug: &c.slug,
                    icon: &c.icon,
                    sort_order: c.sort_order,
                    now_ms: now,
                },
            )
            .await?,
        );
        let mut parent: Option<String> = None;
        for node in &track.nodes {
            let id = derived_id("node", &[&c.id, &node.sort_order.to_string()]);
            added.nodes += usize::from(
                db::content::insert_node_if_absent(
                    &mut tx,
                    &NodeInsert {
                        id: &id,
                        category_id: &c.id,
                        title: &node.title,
                        parent_id: parent.as_deref(),
                        sort_order: node.sort_order,
                        questions_required: 5,
                        pass_threshold: 3,
                        now_ms: now,
                    },
                )
                .await?,
            );
            parent = Some(id);
        }
        for (i, q) in track.questions.iter().enumerate() {
            let id = QuestionId::from_trusted(question_id(&c.id, q));
            let distractors = serde_json::to_string(&q.distractors)?;
            // Spread creation times so admin lists sorted by createdAt keep the file order.
            let created = now + i64::try_from(i).unwrap_or(0);
            let inserted = db::questions::insert(
                &mut tx,
                &NewQuestion {
                    fields: QuestionFields {
                        id: &id,
                        category_id: &c.id,
                        stem_text: &q.stem,
                        content_type: if q.media.is_some() {
                            ContentType::Image
                        } else {
                            ContentType::Text
                        },
                        correct_answer: &q.correct_answer,
                        distractors_json: &distractors,
                        difficulty: q.difficulty,
                        status: "published",
                    },
                    source: "system",
                    now_ms: created,
                },
            )
            .await?;
            added.questions += usize::from(inserted);
            if !inserted {
                // loaded before: staff may have edited it since (even removed its card)
                continue;
            }
            if let Some(m) = &q.media {
                db::media::insert(
                    &mut tx,
                    &NewMedia {
                        id: &m.id,
                        kind: crate::domain::media::MediaKind::Image,
                        mime: MediaFormat::Png.mime(),
                        bytes: m.bytes,
                        width: Some(m.width),
                        height: Some(m.height),
                        duration_ms: None,
                        created_by: "system",
                        now_ms: created,
                    },
                )
                .await?;
                db::questions::set_media(&mut tx, &id, Some((&m.id, Some(&m.alt))), None, created)
                    .await?;
            }
            let card = &q.knowledge_card;
            db::questions::insert_card(
                &mut tx,
                &NewCard {
                    id: &derived_id("card", &[id.as_str()]),
                    question_id: &id,
                    title: Some(&card.title),
                    summary: &card.summary,
                    deep_dive: Some(&card.deep_dive),
                    source_ref: Some(&card.source_ref),
                    now_ms: created,
                },
            )
            .await?;
            // the content it starts with, card included, is its version 1
            db::question_versions::snapshot(&mut tx, &id, "system", created, "[]").await?;
        }
    }
    tx.commit().await?;
    if added != DemoLoad::default() {
        tracing::info!(?added, "loaded demo content");
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_set_meets_its_promise() {
        let sets: Vec<DemoSet> = DEMO_SETS
            .iter()
            .map(|json| serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        assert_eq!(sets[0].tracks.len(), 3);
        // two Chinese tracks of 4 chapters and 30 questions, each with its card
        assert_eq!(sets[1].tracks.len(), 2);
        for t in &sets[1].tracks {
            assert_eq!(t.nodes.len(), 4);
            assert_eq!(t.questions.len(), 30);
        }
        for t in sets.iter().flat_map(|s| &s.tracks) {
            assert!(t.nodes.len() >= 4, "{}", t.category.id);
            assert!(t.questions.len() >= 25, "{}", t.category.id);
            for q in &t.questions {
                assert!(q.distractors.len() >= 2, "{}", q.stem);
                assert!((1..=5).contains(&q.difficulty), "{}", q.stem);
                assert!(!q.knowledge_card.summary.is_empty(), "{}", q.stem);
                assert!(!q.correct_answer.is_empty());
            }
        }
    }
}
