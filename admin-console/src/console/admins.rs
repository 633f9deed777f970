//! Admin accounts over `admin_accounts`, as the JSON API: every admin sees the list and
//! changes their own password; creating, editing, deleting and resetting passwords need
//! super_admin (the forms are not shown to others, and their posts get 403).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::client_addr::ClientAddress;
use shared::domain::admin_role::AdminRole;
use shared::ids::AdminId;
use shared::message::msg;
use shared::services::admin_accounts::{
    self, AdminListQuery, ChangePassword, CreateAdmin, PasswordChanged, UpdateAdmin,
};
use shared::services::admin_auth::{self, AdminAccount};
use shared::services::admin_mfa;

use super::auth::{ConsoleAdmin, ConsoleForm, carry_on};
use super::fields::{ListPage, PagePath, Pager, list_pager, non_empty, parse_int};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{Chrome, FormOf, PageResult, html, page, redirect_with, save_or_rerender};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::ADMINS, get(list))
        .route(urls::ADMIN_NEW, get(new_form).post(create))
        .route(
            urls::ADMIN_PASSWORD,
            get(password_form).post(change_password),
        )
        .route(urls::pattern::ADMIN, get(show).post(update))
        .route(urls::pattern::ADMIN_DELETE, post(delete))
        .route(urls::pattern::ADMIN_RESET_PASSWORD, post(reset_password))
        .route(urls::pattern::ADMIN_RESET_MFA, post(reset_mfa))
}

pub const ROLES: [AdminRole; 2] = AdminRole::ALL;

// ---------------------------------------------------------------------------------------
// The list

#[derive(Template)]
#[template(path = "console/admins.html")]
struct AdminsPage {
    chrome: Chrome,
    items: Vec<AdminAccount>,
    pager: Pager,
    me_id: AdminId,
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ListPage(page_query): ListPage,
) -> PageResult {
    let query = AdminListQuery {
        page: page_query.page,
        limit: page_query.limit,
        role: None,
        is_active: None,
    };
    let (items, pagination) = admin_accounts::list(&state.ctx, &query).await?;
    Ok(page(&AdminsPage {
        chrome: me.chrome(Nav::Admins).await,
        items,
        pager: list_pager(urls::ADMINS, &pagination),
        me_id: me.admin.id.clone(),
    }))
}

// ---------------------------------------------------------------------------------------
// Create

#[derive(Clone, Debug, Default, Deserialize)]
struct CreateForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    role: String,
    /// Empty: one is generated.
    #[serde(default)]
    password: String,
}

#[derive(Template)]
#[template(path = "console/admin_new.html")]
struct NewPage {
    chrome: Chrome,
    form: CreateForm,
    roles: [AdminRole; 2],
    error: Option<String>,
}

/// A password shown this once (after create or reset).
#[derive(Template)]
#[template(path = "console/admin_password_once.html")]
struct PasswordOncePage {
    chrome: Chrome,
    heading: String,
    admin_id: AdminId,
    username: String,
    password: String,
}

async fn new_form(me: ConsoleAdmin) -> PageResult {
    me.require_super()?;
    Ok(page(&NewPage {
        chrome: me.chrome(Nav::Admins).await,
        form: CreateForm {
            role: "admin".into(),
            ..CreateForm::default()
        },
        roles: ROLES,
        error: None,
    }))
}

async fn create(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<CreateForm>,
) -> PageResult {
    me.require_super()?;
    let req = CreateAdmin {
        username: form.username.clone(),
        password: Some(form.password.clone()).filter(|p| !p.is_empty()),
        role: form.role.as_str().into(),
    };
    save_or_rerender(
        htmx,
        FormOf::New,
        admin_accounts::create(&state.ctx, &me.admin, &req).await,
        async |created| {
            Ok(page(&PasswordOncePage {
                chrome: me.chrome(Nav::Admins).await,
                heading: i18n::t("admins-heading-created"),
                admin_id: created.account.id,
                username: created.account.username,
                password: created.plain_password,
            }))
        },
        async |refused| {
            let page = NewPage {
                chrome: me.chrome(Nav::Admins).await,
                // The password is never sent back.
                form: CreateForm {
                    password: String::new(),
                    ..form
                },
                roles: ROLES,
                error: Some(refused.message),
            };
            Ok(html(refused.status, &page))
        },
    )
    .await
}

// ---------------------------------------------------------------------------------------
// One account: edit, delete, reset password

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    role: String,
    /// `1` or `0`.
    #[serde(default)]
    is_active: String,
}

impl EditForm {
    fn of(a: &AdminAccount) -> Self {
        Self {
            username: a.username.clone(),
            role: a.role.as_str().to_string(),
            is_active: a.is_active.to_string(),
        }
    }

    fn to_update(&self) -> Result<UpdateAdmin, Error> {
        Ok(UpdateAdmin {
            username: non_empty(&self.username),
            role: non_empty(&self.role).map(Into::into),
            is_active: parse_int("isActive", &self.is_active)?,
        })
    }
}

#[derive(Template)]
#[template(path = "console/admin_edit.html")]
struct EditPage {
    chrome: Chrome,
    account: AdminAccount,
    form: EditForm,
    roles: [AdminRole; 2],
    is_me: bool,
    error: Option<String>,
}

async fn edit_page(
    me: &ConsoleAdmin,
    account: AdminAccount,
    form: EditForm,
    error: Option<String>,
) -> EditPage {
    EditPage {
        chrome: me.chrome(Nav::Admins).await,
        is_me: account.id == me.admin.id,
        account,
        form,
        roles: ROLES,
        error,
    }
}

async fn show(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<AdminId>,
) -> PageResult {
    let account = admin_auth::get_account(&state.ctx, &id).await?;
    let form = EditForm::of(&account);
    Ok(page(&edit_page(&me, account, form, None).await))
}

async fn update(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    PagePath(id): PagePath<AdminId>,
    ConsoleForm(form): ConsoleForm<EditForm>,
) -> PageResult {
    me.require_super()?;
    let result =
        async { admin_accounts::update(&state.ctx, &me.admin, &id, &form.to_update()?).await }
            .await;
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |account| {
            let text = i18n::t1("admins-saved", "name", &account.username);
            Ok(redirect_with(&me.session, "ok", text, &urls::admin(&account.id)).await)
        },
        async |refused| {
            let account = admin_auth::get_account(&state.ctx, &id).await?;
            let page = edit_page(&me, account, form, Some(refused.message)).await;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

async fn delete(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<AdminId>,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> PageResult {
    me.require_super()?;
    let account = admin_accounts::delete(&state.ctx, &me.admin, &id).await?;
    let text = i18n::t1("admins-deactivated", "name", &account.username);
    Ok(redirect_with(&me.session, "ok", text, urls::ADMINS).await)
}

async fn reset_password(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<AdminId>,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> PageResult {
    me.require_super()?;
    let reset = admin_accounts::reset_password(&state.ctx, &me.admin, &id).await?;
    Ok(page(&PasswordOncePage {
        chrome: me.chrome(Nav::Admins).await,
        heading: i18n::t("admins-heading-reset"),
        admin_id: reset.admin_id,
        username: reset.username,
        password: reset.plain_password,
    }))
}

/// A super_admin turns another admin's MFA off (a lost device); audited by the service.
async fn reset_mfa(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<AdminId>,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> PageResult {
    me.require_super()?;
    let account = admin_mfa::reset(&state.ctx, &me.admin, &id).await?;
    let text = i18n::t1("admins-mfa-reset", "name", &account.username);
    Ok(redirect_with(&me.session, "ok", text, &urls::admin(&account.id)).await)
}

// ---------------------------------------------------------------------------------------
// My password

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PasswordForm {
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    new_password: String,
    #[serde(default)]
    confirm_password: String,
}

#[derive(Template)]
#[template(path = "console/admin_change_password.html")]
struct PasswordPage {
    chrome: Chrome,
    error: Option<String>,
}

async fn password_form(me: ConsoleAdmin) -> PageResult {
    Ok(page(&PasswordPage {
        chrome: me.chrome(Nav::Admins).await,
        error: None,
    }))
}

async fn change_password(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ClientAddress(client): ClientAddress,
    ConsoleForm(form): ConsoleForm<PasswordForm>,
) -> PageResult {
    let result = if form.new_password != form.confirm_password {
        Err(Error::validation(
            msg::THE_NEW_PASSWORD_AND_ITS_CONFIRMATION_DIFFER,
        ))
    } else {
        let req = ChangePassword {
            current_password: form.current_password,
            new_password: form.new_password,
        };
        admin_accounts::change_password(&state.ctx, &me.admin, &req, client).await
    };
    save_or_rerender(
        htmx,
        FormOf::New,
        result,
        async |changed| carry_on_signed_in(&state, &me, changed).await,
        async |refused| {
            // A wrong current password is the service's 401; this session stays signed in.
            let status = if refused.status == StatusCode::UNAUTHORIZED {
                StatusCode::BAD_REQUEST
            } else {
                refused.status
            };
            let page = PasswordPage {
                chrome: me.chrome(Nav::Admins).await,
                error: Some(refused.message),
            };
            Ok(html(status, &page))
        },
    )
    .await
}

/// After a password change: the flash and the redirect, in this session made current.
async fn carry_on_signed_in(
    state: &AppState,
    me: &ConsoleAdmin,
    changed: PasswordChanged,
) -> PageResult {
    carry_on(state, &me.session, &changed.tokens).await?;
    Ok(redirect_with(
        &me.session,
        "ok",
        i18n::t("admins-password-changed"),
        urls::ADMINS,
    )
    .await)
}
