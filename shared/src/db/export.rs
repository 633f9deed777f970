//! A player's copy of their data (PIPL Art. 45): every table that holds rows of a
//! player, read by the player's key. [`SECTIONS`] are exported; [`LEFT_OUT`] are not,
//! each with its reason. A test walks the schema of both engines, so a table with a
//! player column that is in neither list fails it.

use futures::TryStreamExt;
use serde_json::{Map, Value};
use sqlx::{Column, Row, TypeInfo, ValueRef};

use super::{Db, read};
use crate::ids::PlayerId;

/// One exported table: its rows of the player, all columns but `omitted`; the columns
/// in `masked` keep only their first three and last two characters.
pub struct Section {
    pub table: &'static str,
    sql: &'static str,
    omitted: &'static [&'static str],
    masked: &'static [&'static str],
}

macro_rules! section {
    ($table:literal by $key:literal) => {
        section!($table by $key, omit [], mask [])
    };
    ($table:literal by $key:literal, omit [$($omit:literal),*], mask [$($mask:literal),*]) => {
        Section {
            table: $table,
            sql: concat!("SELECT * FROM ", $table, " WHERE ", $key, " = $1"),
            omitted: &[$($omit),*],
            masked: &[$($mask),*],
        }
    };
}

/// The exported tables, in the document's order.
pub const SECTIONS: &[Section] = &[
    // the credentials behind a sign-in are no part of a copy (a PIN hash, the count of
    // wrong PINs, the version every live token carries), nor is the fair-play hold
    section!("players" by "id", omit ["guardian_pin_hash", "guardian_pin_failures",
        "guardian_pin_failed_at", "guardian_pin_locked_until", "token_version",
        "fairplay_held"], mask []),
    section!("player_identities" by "player_id", omit [], mask ["subject"]),
    section!("player_progress" by "player_id"),
    section!("player_check_ins" by "player_id"),
    section!("wallets" by "player_id"),
    section!("inventory_items" by "player_id"),
    section!("subscriptions" by "player_id"),
    section!("reward_ledger" by "player_id"),
    section!("challenge_sessions" by "player_id"),
    // the fair-play flags of each answer are the anti-cheat's workings, not the player's
    section!("challenge_answers" by "player_id", omit ["signals"], mask []),
    section!("node_completions" by "player_id"),
    // (a hold's mark on the boards is the fair-play review's, as below)
    section!("weekly_xp" by "player_id", omit ["hidden_until"], mask []),
    section!("board_results" by "player_id", omit ["hidden_until"], mask []),
    section!("league_players" by "player_id"),
    section!("league_members" by "player_id"),
    section!("ad_sessions" by "player_id"),
    section!("feedback" by "player_id"),
    section!("player_skills" by "player_id"),
    section!("first_answers" by "player_id"),
    section!("review_memory" by "player_id"),
    section!("review_parameters" by "player_id"),
    section!("player_accuracy" by "player_id"),
    section!("question_players" by "player_id"),
    section!("daily_players" by "player_id"),
    section!("minor_play" by "player_id"),
    section!("nppa_reports" by "player_id"),
];

/// Tables with a player column that the copy leaves out, and why.
pub const LEFT_OUT: &[(&str, &str)] = &[
    (
        "refresh_tokens",
        "hashes of sign-in secrets: they identify nothing, and a copy must not carry credentials",
    ),
    (
        "idempotency_records",
        "stored answers replayed for a retried request: their content is in the exported tables",
    ),
    (
        "fairplay_players",
        "the fair-play review's workings (a suspicion score, signal counts, a hold): they \
         say how the anti-cheat judges, which a copy would teach a script to pass; a \
         decision that limits the player (a ban and its reason) is in the players section",
    ),
    (
        "player_search_keys",
        "the console's search index of the nickname, which the players section carries",
    ),
];

/// The columns that hold a player's id, by table (besides `players.id`): what the
/// schema walk looks for.
pub const PLAYER_COLUMNS: &[&str] = &["player_id", "subject_id", "owner_id"];

/// Keeps the first three and last two characters of an identifier.
pub fn mask(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() <= 6 {
        return "*".repeat(chars.len().max(4));
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}{}{tail}", "*".repeat(chars.len() - 5))
}

/// Where [`rows`] puts each row.
pub trait RowSink {
    type Error: From<sqlx::Error>;
    /// Takes one row; failing stops the read.
    fn row(
        &mut self,
        row: Map<String, Value>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// Reads a section's rows of `player_id`, a row at a time, into `sink`: the rows are
/// never all in memory.
pub async fn rows<S: RowSink + Send>(
    db: &Db,
    section: &Section,
    player_id: &PlayerId,
    sink: &mut S,
) -> Result<(), S::Error> {
    read!(db, |ex| {
        let mut stream = sqlx::query(section.sql).bind(player_id).fetch(ex);
        while let Some(row) = stream.try_next().await? {
            let json = json_row(&row, section)?;
            sink.row(json).await?;
        }
    });
    Ok(())
}

/// A row as a JSON object, by each column's type: SQLite by the value's storage class
/// (a `BOOLEAN` column as a boolean), PostgreSQL by the column's type.
fn json_row<R>(row: &R, section: &Section) -> sqlx::Result<Map<String, Value>>
where
    R: Row,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> f64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    usize: sqlx::ColumnIndex<R>,
{
    let mut out = Map::new();
    for (i, column) in row.columns().iter().enumerate() {
        let name = column.name();
        if section.omitted.contains(&name) {
            continue;
        }
        let declared = column.type_info().name().to_ascii_uppercase();
        let raw = row.try_get_raw(i)?;
        let value = if raw.is_null() {
            Value::Null
        } else {
            let stored = raw.type_info().name().to_ascii_uppercase();
            drop(raw);
            match (declared.as_str(), stored.as_str()) {
                ("BOOLEAN" | "BOOL", _) => Value::Bool(row.try_get::<bool, _>(i)?),
                (_, "INTEGER" | "INT2" | "INT4" | "INT8" | "BIGINT") => {
                    Value::from(row.try_get::<i64, _>(i)?)
                }
                (_, "REAL" | "FLOAT4" | "FLOAT8" | "DOUBLE PRECISION") => {
                    Value::from(row.try_get::<f64, _>(i)?)
                }
                _ => {
                    let text = row.try_get::<String, _>(i)?;
                    if section.masked.contains(&name) {
                        Value::String(mask(&text))
                    } else {
                        Value::String(text)
                    }
                }
            }
        };
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

/// The tables of the schema with a player column ([`PLAYER_COLUMNS`]), and `players`:
/// for the test that every one is exported or left out with a reason.
pub async fn tables_with_player_columns(db: &Db) -> sqlx::Result<Vec<String>> {
    let mut tables: Vec<String> = match db {
        Db::Sqlite(s) => {
            sqlx::query_scalar::<_, String>(
                "SELECT DISTINCT m.name FROM sqlite_master m, pragma_table_info(m.name) c
                 WHERE m.type = 'table' AND c.name IN ('player_id', 'subject_id', 'owner_id')",
            )
            .fetch_all(&crate::db::Checked(&s.reader))
            .await?
        }
        Db::Postgres(p) => {
            sqlx::query_scalar::<_, String>(
                "SELECT DISTINCT table_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema()
                   AND column_name IN ('player_id', 'subject_id', 'owner_id')",
            )
            .fetch_all(&crate::db::Checked(p))
            .await?
        }
    };
    tables.push("players".into());
    tables.sort();
    tables.dedup();
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_keep_their_ends_only() {
        assert_eq!(mask("13800138000"), "138******00");
        assert_eq!(mask("short"), "*****");
        assert_eq!(mask("ab"), "****");
    }

    #[test]
    fn no_table_is_both_exported_and_left_out() {
        for section in SECTIONS {
            assert!(
                !LEFT_OUT.iter().any(|(t, _)| *t == section.table),
                "{}",
                section.table
            );
        }
    }
}
