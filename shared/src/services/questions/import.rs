//! Bulk imports: JSON items and CSV (the 13-column template), previewed or applied.

use super::csv_cell;
use super::*;
use crate::message::{Message, msg};

// ---------------------------------------------------------------------------------------
// Imports

/// Checks `items` and, when every one passes, inserts them as drafts in one
/// transaction (at most `max`: the JSON and CSV imports take [`MAX_BATCH`]).
pub(super) async fn import_items(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    items: Vec<std::result::Result<QuestionInput, Message>>,
    audit_action: &str,
    max: usize,
) -> Result<ImportResult> {
    if items.is_empty() || items.len() > max {
        return Err(Error::validation(msg::an_import_holds_1_max_questions(max)));
    }
    let valid = check_items(ctx, items).await?;
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let mut ids = Vec::with_capacity(valid.len());
    for item in &valid {
        ids.push(insert_item(&mut tx, item, &admin.username, now).await?);
    }
    super::writing::commit_many_questions_write(
        tx,
        ctx,
        admin,
        audit_action,
        json!({ "ids": ids }),
    )
    .await?;
    Ok(ImportResult {
        total: valid.len(),
        succeeded: ids.len(),
        ids,
    })
}

/// `POST /v1/admin/questions/import`: all or nothing.
pub async fn import(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    req: ImportRequest,
) -> Result<ImportResult> {
    let items = req
        .questions
        .into_iter()
        .map(|v| {
            if !v.is_object() {
                return Err(msg::ITEM_MUST_BE_AN_OBJECT);
            }
            serde_json::from_value::<QuestionInput>(v).map_err(msg::invalid_item_detail)
        })
        .collect();
    import_items(ctx, admin, items, "question.import", MAX_BATCH).await
}

/// True for `text/plain` and `text/csv` (parameters such as charset ignored).
pub fn is_csv_content_type(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .map(|ct| ct.trim().to_ascii_lowercase())
        .is_some_and(|ct| ct == "text/plain" || ct == "text/csv")
}

/// Parses the CSV: its data rows as import items, or CSV_PARSE_ERROR (bad header, a row
/// of another width, unreadable text) or VALIDATION_ERROR (no rows, over 200 rows).
pub(super) fn parse_csv(body: &[u8]) -> Result<Vec<std::result::Result<QuestionInput, Message>>> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(body);
    let header = reader
        .headers()
        .map_err(|e| Error::CsvParse(msg::cannot_read_the_csv_header_detail(e)))?;
    let names: Vec<&str> = header.iter().map(str::trim).collect();
    let (spec, extra) = names.split_at(names.len().min(CSV_HEADER.len()));
    if spec != CSV_HEADER || !CSV_MEDIA_COLUMNS.starts_with(extra) {
        return Err(Error::CsvParse(msg::the_header_must_be_exactly_header(
            format_args!(
                "{}[,{}[,{}]]",
                CSV_HEADER.join(","),
                CSV_MEDIA_COLUMNS[0],
                CSV_MEDIA_COLUMNS[1]
            ),
        )));
    }
    let width = names.len();
    let mut items = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| Error::CsvParse(msg::malformed_csv_detail(e)))?;
        if record.len() != width {
            return Err(Error::CsvParse(
                msg::a_row_has_found_columns_the_header_expected(record.len(), width),
            ));
        }
        items.push(csv_item(&record));
        if items.len() > MAX_BATCH {
            return Err(Error::validation(msg::the_csv_holds_more_than_max_rows(
                MAX_BATCH,
            )));
        }
    }
    if items.is_empty() {
        return Err(Error::validation(msg::THE_CSV_HOLDS_NO_DATA_ROWS));
    }
    Ok(items)
}

fn csv_item(r: &csv::StringRecord) -> std::result::Result<QuestionInput, Message> {
    // The export's `'` before a formula-like cell is taken away (csv_cell).
    let col = |i: usize| csv_cell::unescape(r.get(i).unwrap_or(""));
    let difficulty = match col(2).trim() {
        "" => None,
        d => Some(
            d.parse::<i64>()
                .map_err(|_| msg::DIFFICULTY_MUST_BE_AN_INTEGER_1_5)?,
        ),
    };
    let distractors = (5..10)
        .map(col)
        .filter(|d| !d.trim().is_empty())
        .map(String::from)
        .collect();
    let knowledge_card = non_empty(Some(col(10))).map(|summary| CardInput {
        title: None,
        summary: Some(summary),
        deep_dive: non_empty(Some(col(11))),
        source_ref: non_empty(Some(col(12))),
    });
    Ok(QuestionInput {
        category_id: Some(col(0).to_string()),
        content_type: Some(col(1).trim().to_string().into()),
        difficulty,
        stem: Some(Stem {
            text: col(3).to_string(),
        }),
        correct_answer: Some(col(4).to_string()),
        distractors: Some(distractors),
        media: non_empty(Some(col(13))).map(|id| QuestionMedia {
            id,
            alt: non_empty(Some(col(14))),
        }),
        knowledge_card,
    })
}

/// `POST /v1/admin/questions/import-csv`: the body is `text/plain` or `text/csv`.
pub async fn import_csv(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<ImportResult> {
    if !is_csv_content_type(content_type) {
        return Err(Error::validation(
            msg::EXPECTED_CONTENT_TYPE_TEXT_PLAIN_OR_TEXT_CSV,
        ));
    }
    let items = parse_csv(body)?;
    import_items(ctx, admin, items, "question.import_csv", MAX_BATCH).await
}

/// One data row of a CSV preview.
#[derive(Clone, Debug)]
pub struct PreviewRow {
    /// 1-based data row (the header is not counted).
    pub row: usize,
    pub stem: String,
    pub category_id: String,
    /// Why the row would be refused; empty when it would import.
    pub errors: Vec<Message>,
}

/// What an import of this CSV would do, found without writing anything.
#[derive(Clone, Debug)]
pub struct CsvPreview {
    pub rows: Vec<PreviewRow>,
}

impl CsvPreview {
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| !r.errors.is_empty()).count()
    }
}

/// Runs every check of `import_csv` on `body` and reports each row, writing nothing.
/// File-level problems (header, widths, row count) are errors, as on import.
pub async fn preview_csv(ctx: &AppContext, body: &[u8]) -> Result<CsvPreview> {
    let items = parse_csv(body)?;
    let mut rows: Vec<PreviewRow> = items
        .iter()
        .enumerate()
        .map(|(i, item)| PreviewRow {
            row: i + 1,
            stem: item
                .as_ref()
                .ok()
                .and_then(|q| q.stem.as_ref())
                .map(|s| s.text.clone())
                .unwrap_or_default(),
            category_id: item
                .as_ref()
                .ok()
                .and_then(|q| q.category_id.clone())
                .unwrap_or_default(),
            errors: Vec::new(),
        })
        .collect();
    match check_items(ctx, items).await {
        Ok(_) => {}
        Err(Error::ValidationFailed(failures)) => {
            for failure in failures {
                if let Some(row) = rows.get_mut(failure.index) {
                    row.errors = failure.errors;
                }
            }
        }
        Err(e) => return Err(e),
    }
    Ok(CsvPreview { rows })
}

/// The CSV template: the header line import expects.
pub fn csv_template() -> String {
    format!("{}\r\n", CSV_HEADER.join(","))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const HEADER: &str = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\n";

    #[test]
    fn csv_quoted_fields_and_empty_columns() {
        let body = format!(
            "{HEADER}cat,text,,\"Line one\nline two, with \"\"quotes\"\"\",A,B,,C,,,\"S, s\",,\n"
        );
        let items = parse_csv(body.as_bytes()).unwrap();
        assert_eq!(items.len(), 1);
        let item = items[0].as_ref().unwrap();
        assert_eq!(
            item.stem.as_ref().unwrap().text,
            "Line one\nline two, with \"quotes\""
        );
        assert_eq!(item.distractors.as_ref().unwrap(), &vec!["B", "C"]);
        assert_eq!(item.difficulty, None);
        let card = item.knowledge_card.as_ref().unwrap();
        assert_eq!(card.summary.as_deref(), Some("S, s"));
        assert_eq!(card.deep_dive, None);
    }

    #[test]
    fn csv_header_and_widths_are_checked() {
        let e = parse_csv(b"a,b,c\n1,2,3\n").unwrap_err();
        assert_eq!(e.code(), "CSV_PARSE_ERROR");
        let e = parse_csv(format!("{HEADER}x,text\n").as_bytes()).unwrap_err();
        assert_eq!(e.code(), "CSV_PARSE_ERROR");
        let e = parse_csv(HEADER.as_bytes()).unwrap_err();
        assert_eq!(e.code(), "VALIDATION_ERROR");
    }

    #[test]
    fn item_rules() {
        let good = QuestionInput {
            stem: Some(Stem { text: "Q".into() }),
            content_type: Some("text".into()),
            correct_answer: Some("A".into()),
            distractors: Some(vec!["B".into(), "C".into()]),
            category_id: Some("cat".into()),
            difficulty: None,
            media: None,
            knowledge_card: None,
        };
        assert_eq!(check_item(&good).unwrap().difficulty, 1);
        let bad = QuestionInput {
            content_type: Some("pdf".into()),
            distractors: Some(vec!["B".into()]),
            difficulty: Some(6),
            knowledge_card: Some(CardInput::default()),
            ..good.clone()
        };
        assert_eq!(check_item(&bad).unwrap_err().len(), 4);
        assert_eq!(check_item(&QuestionInput::default()).unwrap_err().len(), 5);
    }
}
