//! The export: every question the list's filters match, in the imports' own formats
//! (the 13-column CSV, the JSON import body), so an exported bank imports again.
//!
//! Streamed: the rows are read in keyset batches of [`EXPORT_BATCH`] by `(created_at,
//! id)` and each batch is encoded into one chunk, read only when the body asks for the
//! next, so memory stays the same whatever the bank's size and a slow client holds no
//! database connection between batches. The first batch is read before the answer
//! starts, so a database that cannot be reached is still the usual 503 envelope; a
//! later failure can only cut the body short (no final chunk), and is logged.

use futures::stream::{self, BoxStream};

use super::csv_cell;
use super::reading::{FilterParams, list_filter};
use super::*;

/// Questions one export statement reads (and one body chunk carries).
pub const EXPORT_BATCH: i64 = 500;

/// The format of an export: one of the imports' formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The 13-column CSV of `POST /questions/import-csv`.
    Csv,
    /// The body of `POST /questions/import`.
    Json,
    /// A zip of that body (`questions.json`) and every media file its questions use
    /// (`media/{id}.{ext}`): the body of `POST /questions/import-zip`.
    Zip,
}

impl ExportFormat {
    /// The `Content-Type` of the body.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Csv => "text/csv; charset=utf-8",
            Self::Json => "application/json",
            Self::Zip => "application/zip",
        }
    }

    /// The file name a browser saves the body under.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Csv => "questions.csv",
            Self::Json => "questions.json",
            Self::Zip => "questions.zip",
        }
    }
}

/// `GET /questions/export`: the list's filters (same rules, same errors), no paging.
/// Serialised as the export's audit entry (the filters given, by their query names).
#[derive(Clone, Debug, Serialize, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// csv, json or zip (required: the bodies differ).
    #[param(inline)]
    pub format: ExportFormat,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(value_type = Option<QuestionStatus>)]
    pub status: Option<Submitted<QuestionStatus>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category_id: Option<String>,
    /// Case-insensitive match in the stem or the distractors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// 1-5, exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(value_type = Option<QuestionSource>)]
    pub source: Option<Submitted<QuestionSource>>,
    /// `true`: only questions whose current version has flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flagged: Option<bool>,
}

/// A question's card in a JSON export: the import's `knowledgeCard`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedCard {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deep_dive: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_ref: Option<String>,
}

/// A question in a JSON export: exactly an item of `POST /questions/import` (no id,
/// status or source: an import makes new drafts).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedQuestion {
    pub stem: Stem,
    pub content_type: ContentType,
    pub correct_answer: String,
    pub distractors: Vec<String>,
    pub category_id: String,
    /// 1-5.
    pub difficulty: i64,
    /// Absent when the question has none (the file itself is in the library, by its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<QuestionMedia>,
    /// Absent when the question has no card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knowledge_card: Option<ExportedCard>,
}

/// The JSON export's body: the body of `POST /questions/import` (which takes 200 items
/// at a time).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct QuestionExport {
    pub questions: Vec<ExportedQuestion>,
}

impl From<AdminQuestion> for ExportedQuestion {
    fn from(q: AdminQuestion) -> Self {
        Self {
            stem: q.stem,
            content_type: q.content_type,
            correct_answer: q.correct_answer,
            distractors: q.distractors,
            category_id: q.category_id,
            difficulty: q.difficulty,
            media: q.media,
            knowledge_card: q.knowledge_card.map(|c| ExportedCard {
                title: c.title,
                summary: c.summary,
                deep_dive: c.deep_dive,
                source_ref: c.source_ref,
            }),
        }
    }
}

/// A started export: the body's format and its chunks.
pub struct Export {
    pub format: ExportFormat,
    /// The body, one chunk per batch; an `Err` ends it early (already logged).
    pub chunks: BoxStream<'static, Result<Vec<u8>>>,
}

/// What the stream still has to do.
enum Next {
    /// Encode these rows (the first batch, read before the answer started).
    Rows(Vec<QuestionRow>),
    /// Read the batch after the cursor.
    Read,
    Done,
}

/// The stream's state between chunks.
struct Cursor {
    db: db::Db,
    filter: ListFilter,
    format: ExportFormat,
    /// The key of the last row written.
    after: Option<(i64, String)>,
    written: u64,
    /// A CSV writes the media columns (a question of the export has media).
    media_columns: bool,
    next: Next,
    /// The request's span, so the stream's log lines carry its request id.
    span: tracing::Span,
}

/// `GET /v1/admin/questions/export` (and the console's buttons): checks the filters,
/// records the export in the audit log (who, when, the format and the filters: a bank
/// leaving the service is something to trace), reads the first batch, and hands back
/// the body as a stream of the rest.
pub async fn export(ctx: &AppContext, admin: &AdminPrincipal, q: &ExportQuery) -> Result<Export> {
    // Taken before any await: the request's span, whatever a driver enters meanwhile.
    let span = tracing::Span::current();
    let filter = list_filter(&FilterParams {
        status: q.status.as_ref(),
        category_id: q.category_id.as_deref(),
        keyword: q.keyword.as_deref(),
        difficulty: q.difficulty,
        source: q.source.as_ref(),
        flagged: q.flagged,
    })?;
    // A zip is one per process at a time: its turn is taken before it is recorded.
    let zip_turn = match q.format {
        ExportFormat::Zip => Some(super::bundle::bundle_turn().await?),
        _ => None,
    };
    // Before any row is read: an export whose entry cannot be written does not start.
    let tx = ctx.db.begin().await?;
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "question.export",
            target_type: "question",
            target_id: None,
            before: None,
            after: serde_json::to_value(q).ok(),
        },
    )
    .await?;
    if let Some(turn) = zip_turn {
        return super::bundle::export(ctx, filter, turn).await;
    }
    // An export may lag as a list does; a replica that fails before the first rows
    // leaves it to the primary.
    let mut db = ctx.lagging_db();
    let first = match db::questions::export_batch(&db, &filter, None, EXPORT_BATCH).await {
        Err(e) if crate::error::is_database_unreachable(&e) && ctx.replicas.is_some() => {
            db = ctx.db.clone();
            db::questions::export_batch(&db, &filter, None, EXPORT_BATCH).await?
        }
        read => read?,
    };
    let media_columns =
        q.format == ExportFormat::Csv && db::questions::any_with_media(&db, &filter).await?;
    let cursor = Cursor {
        db,
        filter,
        format: q.format,
        after: None,
        written: 0,
        media_columns,
        next: Next::Rows(first),
        span,
    };
    Ok(Export {
        format: q.format,
        chunks: Box::pin(stream::unfold(cursor, next_chunk)),
    })
}

async fn next_chunk(mut c: Cursor) -> Option<(Result<Vec<u8>>, Cursor)> {
    let rows = match std::mem::replace(&mut c.next, Next::Done) {
        Next::Done => return None,
        Next::Rows(rows) => rows,
        Next::Read => {
            let after = c.after.as_ref().map(|(at, id)| (*at, id.as_str()));
            match db::questions::export_batch(&c.db, &c.filter, after, EXPORT_BATCH).await {
                Ok(rows) => rows,
                Err(e) => return Some(cut_short(c, e.into())),
            }
        }
    };
    let last_batch = i64::try_from(rows.len()).unwrap_or(i64::MAX) < EXPORT_BATCH;
    // The cursor moves with every row written, so it is unset only before the first.
    let first_chunk = c.after.is_none();
    if let Some(row) = rows.last() {
        c.after = Some((row.created_at, row.id.to_string()));
    }
    let encoded = encode(c.format, rows, first_chunk, c.written, c.media_columns);
    let mut chunk = match encoded {
        Ok((chunk, n)) => {
            c.written += n;
            chunk
        }
        Err(e) => return Some(cut_short(c, e)),
    };
    if last_batch {
        if c.format == ExportFormat::Json {
            chunk.extend_from_slice(b"]}");
        }
        c.span.in_scope(|| {
            tracing::info!(format = ?c.format, rows = c.written, "questions exported");
        });
        if chunk.is_empty() {
            // A CSV whose last batch came back empty: nothing more to send.
            return None;
        }
    } else {
        c.next = Next::Read;
    }
    Some((Ok(chunk), c))
}

/// The stream's last item after a failure: the answer has started, so the error can
/// only end the body (without its final chunk); logged here, where its cause is known.
fn cut_short(c: Cursor, e: Error) -> (Result<Vec<u8>>, Cursor) {
    c.span.in_scope(|| {
        tracing::error!(error = ?e, rows = c.written, "question export cut short");
    });
    (Err(e), c)
}

/// One batch as body bytes (after the CSV header or the JSON opening when `first`), and
/// how many rows it holds. `written` is the rows before it (a JSON item after another
/// takes a comma).
pub(super) fn encode(
    format: ExportFormat,
    rows: Vec<QuestionRow>,
    first: bool,
    written: u64,
    media_columns: bool,
) -> Result<(Vec<u8>, u64)> {
    let n = rows.len() as u64;
    let items = rows
        .into_iter()
        .map(|r| ExportedQuestion::from(AdminQuestion::from(r)));
    let bytes = match format {
        ExportFormat::Csv => {
            // CRLF, as the template: RFC 4180, and what spreadsheets write.
            let mut w = csv::WriterBuilder::new()
                .terminator(csv::Terminator::CRLF)
                .from_writer(Vec::new());
            if first {
                let extra = if media_columns {
                    &CSV_MEDIA_COLUMNS[..]
                } else {
                    &[]
                };
                w.write_record(CSV_HEADER.iter().chain(extra))
                    .map_err(Error::internal)?;
            }
            for item in items {
                w.write_record(csv_row(&item, media_columns))
                    .map_err(Error::internal)?;
            }
            w.into_inner().map_err(Error::internal)?
        }
        ExportFormat::Zip => {
            return Err(Error::internal("a zip export is written by the bundle"));
        }
        ExportFormat::Json => {
            let mut out = Vec::new();
            if first {
                out.extend_from_slice(b"{\"questions\":[");
            }
            for (i, item) in items.enumerate() {
                if written > 0 || i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut out, &item).map_err(Error::internal)?;
            }
            out
        }
    };
    Ok((bytes, n))
}

/// A question as a row of the 13 columns: distractors 1-5 (a question stored before the
/// limit with more keeps its first five: the template has no more columns; JSON keeps
/// all), the card's summary, deep dive and source (the template has no title column).
/// With `media_columns`, the media's id and alternative text follow.
/// Every cell a spreadsheet would run as a formula is escaped ([`csv_cell`]).
fn csv_row(q: &ExportedQuestion, media_columns: bool) -> Vec<String> {
    let distractor = |i: usize| q.distractors.get(i).cloned().unwrap_or_default();
    let card = q.knowledge_card.as_ref();
    let mut row = vec![
        q.category_id.clone(),
        q.content_type.as_str().to_string(),
        q.difficulty.to_string(),
        q.stem.text.clone(),
        q.correct_answer.clone(),
        distractor(0),
        distractor(1),
        distractor(2),
        distractor(3),
        distractor(4),
        card.map(|c| c.summary.clone()).unwrap_or_default(),
        card.and_then(|c| c.deep_dive.clone()).unwrap_or_default(),
        card.and_then(|c| c.source_ref.clone()).unwrap_or_default(),
    ];
    if media_columns {
        let media = q.media.as_ref();
        row.push(media.map(|m| m.id.clone()).unwrap_or_default());
        row.push(media.and_then(|m| m.alt.clone()).unwrap_or_default());
    }
    row.into_iter().map(csv_cell::escape).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn row(id: &str, stem: &str, card: bool) -> QuestionRow {
        QuestionRow {
            id: id.into(),
            category_id: "cat".into(),
            stem_text: stem.into(),
            content_type: ContentType::Image,
            correct_answer: "A, \"a\"".into(),
            distractors: r#"["B","C\nc","D","E","F","G"]"#.into(),
            difficulty: 3,
            media_id: None,
            media_alt: None,
            status: QuestionStatus::Published,
            source: crate::domain::question_source::QuestionSource::Ugc,
            created_at: 1,
            updated_at: 2,
            version: 1,
            stats_attempts: 0,
            stats_correct: 0,
            stats_flags: None,
            card_id: card.then(|| "k".into()),
            card_title: card.then(|| "T".into()),
            card_summary: card.then(|| "S, s".into()),
            card_deep_dive: None,
            card_source_ref: card.then(|| "R".into()),
        }
    }

    fn body(format: ExportFormat, batches: Vec<Vec<QuestionRow>>) -> String {
        body_with(format, batches, false)
    }

    fn body_with(format: ExportFormat, batches: Vec<Vec<QuestionRow>>, media: bool) -> String {
        let mut out = Vec::new();
        let mut written = 0;
        for (i, rows) in batches.into_iter().enumerate() {
            let (chunk, n) = encode(format, rows, i == 0, written, media).unwrap();
            out.extend(chunk);
            written += n;
        }
        if format == ExportFormat::Json {
            out.extend_from_slice(b"]}");
        }
        String::from_utf8(out).unwrap()
    }

    /// What the CSV export writes, the CSV import reads back as the same item.
    #[test]
    fn csv_rows_read_back_as_the_import_items() {
        let stem = "Line one\r\nline two, with \"quotes\"";
        let csv = body(
            ExportFormat::Csv,
            vec![vec![row("1", stem, true)], vec![row("2", "plain", false)]],
        );
        assert!(csv.starts_with(&format!("{}\r\n", CSV_HEADER.join(","))));
        let items = super::super::import::parse_csv(csv.as_bytes()).unwrap();
        assert_eq!(items.len(), 2);
        let first = items[0].as_ref().unwrap();
        assert_eq!(first.stem.as_ref().unwrap().text, stem);
        assert_eq!(first.correct_answer.as_deref(), Some("A, \"a\""));
        assert_eq!(
            first.distractors.as_deref().unwrap(),
            ["B", "C\nc", "D", "E", "F"],
            "five columns"
        );
        assert_eq!(
            first.content_type.as_ref().map(Submitted::as_sent),
            Some("image")
        );
        assert_eq!(first.difficulty, Some(3));
        let card = first.knowledge_card.as_ref().unwrap();
        assert_eq!(card.summary.as_deref(), Some("S, s"));
        assert_eq!(card.deep_dive, None);
        assert_eq!(card.source_ref.as_deref(), Some("R"));
        assert!(items[1].as_ref().unwrap().knowledge_card.is_none());
    }

    /// With media in the export, two columns follow the spec's 13; the import reads the
    /// media back (and a question without it stays without).
    #[test]
    fn csv_media_columns_read_back() {
        let mut with = row("1", "flag", true);
        with.media_id = Some("ab".repeat(32));
        with.media_alt = Some("=a red disc".into());
        let csv = body_with(
            ExportFormat::Csv,
            vec![vec![with], vec![row("2", "plain", false)]],
            true,
        );
        let header = format!("{},mediaId,mediaAlt\r\n", CSV_HEADER.join(","));
        assert!(csv.starts_with(&header), "{csv}");
        let items = super::super::import::parse_csv(csv.as_bytes()).unwrap();
        let media = items[0].as_ref().unwrap().media.as_ref().unwrap();
        assert_eq!(media.id, "ab".repeat(32));
        assert_eq!(media.alt.as_deref(), Some("=a red disc"));
        assert!(items[1].as_ref().unwrap().media.is_none());
        // the id column alone is enough; any other 14th column is not
        let only_id = format!(
            "{},mediaId\ncat,image,,s,A,B,,,,,,,,{}\n",
            CSV_HEADER.join(","),
            "cd".repeat(32)
        );
        let items = super::super::import::parse_csv(only_id.as_bytes()).unwrap();
        let media = items[0].as_ref().unwrap().media.as_ref().unwrap();
        assert_eq!(
            (media.id.as_str(), media.alt.as_deref()),
            (&*"cd".repeat(32), None)
        );
        let other = format!(
            "{},picture\ncat,image,,s,A,B,,,,,,,,x\n",
            CSV_HEADER.join(",")
        );
        let e = super::super::import::parse_csv(other.as_bytes()).unwrap_err();
        assert_eq!(e.code(), "CSV_PARSE_ERROR");
    }

    /// Cells a spreadsheet would run carry a leading `'` in the file, and read back as
    /// they were stored.
    #[test]
    fn formula_cells_are_escaped_and_read_back() {
        let mut r = row("1", "=HYPERLINK(\"http://evil\")", true);
        r.correct_answer = "-5".into();
        r.distractors = r#"["+5","@5","'=quoted","5"]"#.into();
        r.card_summary = Some("\tindented".into());
        let csv = body(ExportFormat::Csv, vec![vec![r]]);
        let data = csv.lines().nth(1).unwrap();
        assert!(
            data.contains("'=HYPERLINK") && data.contains(",'-5,'+5,'@5,''=quoted,5,"),
            "{data}"
        );
        let items = super::super::import::parse_csv(csv.as_bytes()).unwrap();
        let item = items[0].as_ref().unwrap();
        assert_eq!(
            item.stem.as_ref().unwrap().text,
            "=HYPERLINK(\"http://evil\")"
        );
        assert_eq!(item.correct_answer.as_deref(), Some("-5"));
        assert_eq!(
            item.distractors.as_deref().unwrap(),
            ["+5", "@5", "'=quoted", "5"]
        );
        // written quoted; read back trimmed, as the import trims every card field
        assert!(csv.contains(",'\tindented,"), "{csv}");
        let card = item.knowledge_card.as_ref().unwrap();
        assert_eq!(card.summary.as_deref(), Some("indented"));
    }

    /// The JSON export, joined over batches, is an import body whose items pass the
    /// import item rules.
    #[test]
    fn json_batches_join_into_an_import_body() {
        let five = |mut r: QuestionRow| {
            r.distractors = r#"["B","C\nc","D","E","F"]"#.into();
            r
        };
        let json = body(
            ExportFormat::Json,
            vec![
                vec![five(row("1", "one", true)), five(row("2", "two", false))],
                vec![five(row("3", "three", true))],
            ],
        );
        let req: ImportRequest = serde_json::from_str(&json).unwrap();
        assert_eq!(req.questions.len(), 3);
        for v in &req.questions {
            let item: QuestionInput = serde_json::from_value(v.clone()).unwrap();
            let valid = check_item(&item).unwrap();
            assert_eq!(valid.distractors.len(), 5);
        }
        assert_eq!(req.questions[0]["knowledgeCard"]["title"], "T");
        assert!(req.questions[1].get("knowledgeCard").is_none());
        assert_eq!(
            body(ExportFormat::Json, vec![vec![]]),
            r#"{"questions":[]}"#
        );
    }
}
