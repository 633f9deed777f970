# The console: its frame (header, menu, language menu), sign-in, error pages, pager
# and the terms every screen shows (statuses, roles). One file per screen beside it.

console-brand = Quiz console
console-title = Console
nav-dashboard = Dashboard
nav-questions = Questions
nav-attention = Needs attention
nav-import = CSV import
nav-media = Media
nav-skill-tree = Skill tree
nav-categories = Categories
nav-cards = Knowledge cards
nav-players = Players
nav-fair-play = Fair play
nav-feedback = Feedback
nav-providers = Sign-in providers
nav-admins = Admins
nav-audit = Audit log
nav-mfa = MFA
sign-out = Sign out
language = Language
language-browser = Browser's language
language-apply = Apply
# between the items of a list
list-sep = { ", " }
role-super_admin = super_admin
role-admin = admin

## Stored values shown by name (i18n::term): the English names are the stored values

status-draft = draft
status-reviewing = reviewing
status-published = published
status-archived = archived
content-type-text = text
content-type-image = image
content-type-video = video
content-type-audio = audio
source-system = system
source-ugc = ugc
flag-too_easy = too_easy
flag-too_hard = too_hard
flag-likely_miskeyed = likely_miskeyed
flag-dead_distractor = dead_distractor
flag-negative_discrimination = negative_discrimination
signal-too_fast = too_fast
signal-time_claim_impossible = time_claim_impossible
signal-fast_perfect = fast_perfect

## Sign-in, error pages, the pager

sign-in-title = Sign in
sign-in-username = Username
sign-in-password = Password
sign-in-code = MFA code
sign-in-code-help = (only if your account has MFA on: the 6 digits of your authenticator app, or a recovery code)
sign-in-submit = Sign in
sign-in-signed-out = Signed out.
sign-in-mfa-needed = This account has MFA on: enter the code from your authenticator app (or a recovery code) with your password.
page-refused = Request refused
page-go-back = Go back
page-console-home = Console home
page-error-unavailable = The service is temporarily unavailable; try again in a moment.
page-error-server = Something went wrong on the server; the error was logged. Try again.
page-error-render = the page could not be rendered
pager-previous = ← Previous
pager-next = Next →
pager-info = Page { $page } · { $total } in all
sign-in-security-changes = Changes to this account since your last sign-in: { $list }. If you did not make them, change your password and MFA now.
security-change-admin-change_password = password changed by { $by } ({ $at })
security-change-admin-reset_password = password reset by { $by } ({ $at })
security-change-admin-mfa_setup = MFA set-up started by { $by } ({ $at })
security-change-admin-mfa_enable = MFA turned on by { $by } ({ $at })
security-change-admin-mfa_disable = MFA turned off by { $by } ({ $at })
security-change-admin-mfa_reset = MFA reset by { $by } ({ $at })
security-change-admin-mfa_lock = MFA codes locked after wrong codes ({ $at })
