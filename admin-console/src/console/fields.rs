//! Reading typed form and query fields (empty means "not given"), and what every paged
//! console list shares: its page ([`ListPage`]) and its pager.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use shared::Error;
use shared::envelope::Pagination;
use shared::http::ApiPath;
use shared::message::msg;
use shared::services::audit::PageQuery;

use super::page::PageError;
use super::urls;

/// Rows on a page of a console list.
pub const LIST_ROWS: i64 = 20;

/// The trimmed text, or `None` when it is empty.
pub fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// Previous/next links of a paged list.
pub struct Pager {
    pub page: i64,
    pub total: i64,
    pub prev: Option<String>,
    pub next: Option<String>,
}

/// The pager of `p`; `href(n)` is the list's URL at page `n`.
pub fn pager(p: &Pagination, href: impl Fn(i64) -> String) -> Pager {
    let last = (p.total + p.limit - 1) / p.limit.max(1);
    Pager {
        page: p.page,
        total: p.total,
        prev: (p.page > 1).then(|| href(p.page - 1)),
        next: (p.page < last).then(|| href(p.page + 1)),
    }
}

/// A query string read leniently (unknown keys ignored), 400 when unreadable.
pub fn parse_query<T: DeserializeOwned>(raw: Option<&str>) -> Result<T, Error> {
    serde_html_form::from_str(raw.unwrap_or(""))
        .map_err(|e| Error::validation(msg::invalid_query_detail(e)))
}

/// `""` → None, else a whole number or 400.
pub fn parse_int(name: &str, s: &str) -> Result<Option<i64>, Error> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    s.parse::<i64>()
        .map(Some)
        .map_err(|_| Error::validation(msg::field_must_be_a_whole_number(name)))
}

/// The `page` of a plain paged list.
#[derive(Debug, Default, Deserialize)]
pub struct PageParam {
    #[serde(default)]
    pub page: String,
}

/// The page a plain console list shows (`?page=N`, [`LIST_ROWS`] rows), read before its
/// handler runs (400 when `page` is not a whole number): a list screen takes this, asks
/// its service for the page and answers [`list_pager`].
pub struct ListPage(pub PageQuery);

impl<S: Send + Sync> FromRequestParts<S> for ListPage {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, PageError> {
        let param: PageParam = parse_query(parts.uri.query())?;
        Ok(Self(PageQuery {
            page: parse_int("page", &param.page)?,
            limit: Some(LIST_ROWS),
        }))
    }
}

/// The pager of a plain list whose pages are `list?page=N`.
pub fn list_pager(list: &str, pagination: &Pagination) -> Pager {
    pager(pagination, |n| {
        urls::with_query(list, &[("page", &n.to_string())])
    })
}

/// The typed segments of a console URL (an id, or an id and a version), read as the
/// API reads them; a segment that does not read is the console's error page.
pub struct PagePath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for PagePath<T> {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, PageError> {
        let ApiPath(value) = ApiPath::<T>::from_request_parts(parts, state).await?;
        Ok(Self(value))
    }
}

/// The filters of a filtered console list (questions, media, players), as typed in its
/// form: an empty field does not filter. A filtered list screen takes [`Filtered`] of
/// them and answers [`Filtered::pager`].
pub trait ListFilters: DeserializeOwned + Send {
    /// The list's URL.
    const LIST: &'static str;

    /// The filters as the list's links carry them, in their form's order.
    fn params(&self) -> Vec<(&'static str, &str)>;

    /// The refusal of a query that does not read as these filters.
    fn unreadable(detail: serde_html_form::de::Error) -> Error {
        Error::validation(msg::invalid_query_detail(detail))
    }

    /// The filters of a query string (unknown keys, such as `page`, ignored).
    fn read(raw: Option<&str>) -> Result<Self, Error> {
        serde_html_form::from_str(raw.unwrap_or("")).map_err(Self::unreadable)
    }

    /// The list's URL with these filters at `page`.
    fn href(&self, page: i64) -> String {
        let page = page_value(page);
        let mut params = self.params();
        params.push(("page", &page));
        urls::with_query(Self::LIST, &params)
    }
}

/// A filtered list's query: its filters and the page it shows (`?…&page=N`), read
/// before its handler runs (400 when the filters do not read or `page` is not a whole
/// number).
#[derive(Default)]
pub struct Filtered<F> {
    pub filters: F,
    pub page: Option<i64>,
}

impl<F: ListFilters> Filtered<F> {
    /// The filters and page of a query string.
    pub fn read(raw: Option<&str>) -> Result<Self, Error> {
        let filters = F::read(raw)?;
        let param: PageParam = parse_query(raw)?;
        Ok(Self {
            filters,
            page: parse_int("page", &param.page)?,
        })
    }

    /// The pager of the page these filters gave.
    pub fn pager(&self, pagination: &Pagination) -> Pager {
        pager(pagination, |n| self.filters.href(n))
    }
}

impl<S: Send + Sync, F: ListFilters> FromRequestParts<S> for Filtered<F> {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, PageError> {
        Ok(Self::read(parts.uri.query())?)
    }
}

/// A page number as a list's links carry it: none for the first page.
fn page_value(page: i64) -> String {
    if page > 1 {
        page.to_string()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_links() {
        let p = pager(
            &Pagination {
                total: 45,
                page: 2,
                limit: 20,
            },
            |n| format!("/x?page={n}"),
        );
        assert_eq!(p.prev.as_deref(), Some("/x?page=1"));
        assert_eq!(p.next.as_deref(), Some("/x?page=3"));
        let p = pager(
            &Pagination {
                total: 0,
                page: 1,
                limit: 20,
            },
            |n| format!("/x?page={n}"),
        );
        assert!(p.prev.is_none() && p.next.is_none());
    }
}
