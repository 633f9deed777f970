# The console's people screens: players and their bans, fair play, feedback, the audit
# log, sign-in providers, admin accounts and MFA.

## Players: the list

people-title = Players
people-search = Search
people-search-placeholder = id, nickname or phone number
people-search-button = Search
people-col-player = Player
people-col-kind = Kind
people-col-region = Region
people-col-xp = XP
people-col-level = Level
people-col-streak = Streak
people-col-ban = Ban
people-col-joined = Joined
people-no-nickname = (no nickname)
people-kind-guest = guest
people-kind-account = account
people-banned-badge = banned
people-none-match = No player matches.

## Stored values shown by name: tiers and sign-in methods

people-tier-free = free
people-tier-pro = pro
people-tier-proplus = proplus
people-method-device = device
people-method-phone = phone
people-method-huawei = huawei
people-method-apple = apple
people-method-wechat = wechat
people-method-qq = qq

## One player

people-player = Player
people-back = ← Players
people-id = Id
people-joined = joined { $at }
people-progress = Progress
people-xp = XP
people-level = Level
people-streak = Streak
people-streak-days = { $days } days
people-check-in-days = Check-in days
people-active-track = Active track
people-none = none
people-review = Review
people-review-due = { $count } due
people-review-recall = recall { $percent }%
people-review-nothing = nothing remembered yet
people-review-default = default FSRS parameters
people-review-fitted = own FSRS parameters, fitted { $at }
people-tier = Tier
people-account = Account
people-region = Region
people-not-set = not set
people-sign-in-methods = Sign-in methods
people-unknown = unknown
people-avatar = Avatar
people-fair-play = Fair play
people-no-signals = no signals
people-held-note = held: on no board others see

## A player's ban

people-ban-title = Ban
people-banned = Banned
people-banned-until = until { $at }
people-until-unbanned = until unbanned
people-ban-reason = reason: { $reason }
people-lift-ban = Lift the ban
people-not-banned = Not banned.
people-ban-reason-label = Reason (optional, shown to staff)
people-ban-open-help = Leave both ends empty for a ban that lasts until it is lifted.
people-ban-days = Ends after this many days
people-ban-until-label = or ends at (Beijing time)
people-ban-change = Change the ban
people-ban-player = Ban this player
people-flash-banned-until = Banned until { $at }.
people-flash-banned-open = Banned until unbanned.
people-flash-unbanned = Ban lifted.

## Feedback

people-feedback-title = Feedback
people-feedback-col-received = Received
people-feedback-col-player = Player
people-feedback-col-feedback = Feedback
people-feedback-col-contact = Contact
people-feedback-col-screen = Screen
people-feedback-deleted = deleted account
people-feedback-empty = No feedback yet.

## Fair play

fair-title = Fair play
fair-intro = Players whose answers came faster than a person reads, or whose app claimed more time than passed. A held player is on no board others see (they still see themselves); nobody is banned by the service. Clear a fast reader, keep a script held, or ban it.
fair-col-player = Player
fair-col-state = State
fair-col-week-score = Week score
fair-col-signals = Signals (all weeks)
fair-col-examples = Latest answers
fair-col-decide = Decide
fair-state-flagged = flagged
fair-state-held = held
fair-state-cleared = cleared
fair-state-banned = banned
fair-held-mark = (held)
fair-by = by { $name }
fair-decider-system = system
fair-week-of = week of { $week }
fair-count-too-fast = too fast { $n }
fair-count-impossible = impossible time { $n }
fair-count-fast-perfect = perfect and fast { $n }
fair-count-merges = unusual merges { $n }
fair-example = { $at }: server { $server } ms, app claimed { $claimed } ms, { $result } ({ $signals })
fair-unknown-ms = ?
fair-right = right
fair-wrong = wrong
fair-reason-placeholder = Reason (optional)
fair-reason-label = Reason
fair-clear = Clear
fair-hold = Hold
fair-ban = Ban
fair-empty = Nobody is flagged.
fair-done-cleared = { $name } is cleared: back on the boards.
fair-done-held = { $name } is held: off every board others see.
fair-done-banned = { $name } is banned.

## The audit log (actions stay as stored)

audit-title = Audit log
audit-intro = Every admin write, newest first.
audit-col-time = Time
audit-col-actor = Actor
audit-col-action = Action
audit-col-target = Target
audit-col-before = Before
audit-col-after = After
audit-target-sep = { ": " }
audit-empty = Nothing recorded yet.
audit-target-admin = admin
audit-target-auth_provider = auth_provider
audit-target-category = category
audit-target-knowledge_card = knowledge_card
audit-target-player = player
audit-target-question = question
audit-target-skill_node = skill_node

## Sign-in providers

prov-title = Sign-in providers
prov-intro = Third-party providers can be switched off and on; the player app sees the change on its next request. Built-in methods are always on.
prov-col-provider = Provider
prov-col-type = Type
prov-col-platforms = Platforms
prov-col-state = State
prov-kind-third_party = third_party
prov-kind-secondary = secondary
prov-platform-ios = ios
prov-platform-android = android
prov-platform-harmony = harmony
prov-name-phone_sms = Phone number
prov-name-huawei = HUAWEI ID
prov-name-apple = Sign in with Apple
prov-name-wechat = WeChat
prov-name-qq = QQ
prov-enabled = enabled
prov-disabled = disabled
prov-enable = Enable
prov-disable = Disable
prov-built-in = built in
prov-done-enabled = { $name } is enabled.
prov-done-disabled = { $name } is disabled; players can no longer sign in with it.

## Admin accounts

admins-title = Admins
admins-heading = Admin accounts
admins-new = New admin
admins-change-password = Change my password
admins-my-mfa = My MFA
admins-read-only = You can see the accounts; creating, changing, deleting them and resetting passwords needs the super_admin role.
admins-col-username = Username
admins-col-role = Role
admins-col-state = State
admins-col-mfa = MFA
admins-col-last-sign-in = Last sign-in
admins-col-created = Created
admins-you = (you)
admins-active = active
admins-inactive = inactive
admins-mfa-on = on
admins-mfa-off = off
admins-never = never
admins-empty = No accounts on this page.
admins-back = ← Admins
admins-new-title = New admin
admins-username-rule = Username (3-50 characters)
admins-role = Role
admins-password-rule = Password (8-128 characters; leave empty to generate one)
admins-password-shown-once = The password is shown once, on the next page.
admins-create = Create admin
admins-id = Id
admins-state = State
admins-mfa = MFA
admins-manage = manage
admins-last-sign-in = Last sign-in
admins-created = Created
admins-updated = Updated
admins-change = Change
admins-username = Username
admins-inactive-option = inactive (signs the admin out everywhere)
admins-save = Save
admins-password-and-removal = Password and removal
admins-own-reset-note = (a reset of your own password would sign you out)
admins-reset-password = Reset the password
admins-reset-mfa = Reset MFA (lost device)
admins-delete = Delete (deactivate)
admins-edit-help = A reset shows a new random password once and ends the admin's sessions; an MFA reset ends the admin's sessions and lets them sign in with the password alone until they set MFA up again; a deleted admin is deactivated and kept for the audit log.
admins-edit-read-only = Changing this account, resetting its password or deleting it needs the super_admin role.
admins-password-title = Change my password
admins-signed-in-as = Signed in as { $name }. Your other console sessions and API tokens end; this browser stays signed in.
admins-current-password = Current password
admins-new-password = New password (8-128 characters)
admins-new-password-again = New password again
admins-change-password-button = Change password
admins-once-before = The password of{ " " }
admins-once-after = { " " }is shown this once; copy it now and hand it over safely.
admins-once-reload = Reloading this page will not show it again.
admins-heading-created = Admin created
admins-heading-reset = Password reset
admins-saved = Saved { $name }.
admins-deactivated = { $name } is deactivated; their sessions and tokens have ended.
admins-mfa-reset = MFA of { $name } is off; they sign in with their password and can set it up again.
admins-password-changed = Password changed. Your other sessions have been signed out.

## MFA

mfa-title = MFA
mfa-heading = Two-factor sign-in (MFA)
mfa-required = This super_admin account must have MFA on before it can use the console: set it up here.
mfa-on-badge = MFA is on
mfa-off-badge = MFA is off
mfa-on-text = Signing in needs the code of your authenticator app (or a recovery code).
mfa-codes-left-before = Recovery codes left:{ " " }
mfa-codes-left-after = .
mfa-turn-off-heading = Turn MFA off
mfa-code-or-recovery = A current code or a recovery code
mfa-turn-off = Turn MFA off
mfa-setup-started = Set-up started: scan the QR code with an authenticator app (or type the secret), then enter the 6-digit code it shows.
mfa-qr-label = QR code of the MFA secret
mfa-secret = Secret:
mfa-uri-summary = The otpauth URI
mfa-code-from-app = Code from the app
mfa-turn-on = Turn MFA on
mfa-restart = Start over with a new secret
mfa-off-intro = With MFA on, signing in also needs a code from an authenticator app on your phone (TOTP).
mfa-set-up = Set up MFA
mfa-current-password = Your current password
mfa-codes-title = MFA is on
mfa-codes-intro = These recovery codes are shown this once. Each one signs you in once in place of an app code (a lost phone); keep them somewhere safe.
mfa-codes-reload = Reloading this page will not show them again.
mfa-back = Back to MFA
mfa-flash-setup = Scan the code with your authenticator app, then enter the code it shows.
mfa-flash-off = MFA is off.

## Audit actions by name (English: as stored)

audit-action-admin-change_password = admin.change_password
audit-action-admin-create = admin.create
audit-action-admin-delete = admin.delete
audit-action-admin-login = admin.login
audit-action-admin-login_failed = admin.login_failed
audit-action-admin-mfa_disable = admin.mfa_disable
audit-action-admin-mfa_enable = admin.mfa_enable
audit-action-admin-mfa_lock = admin.mfa_lock
audit-action-admin-mfa_reset = admin.mfa_reset
audit-action-admin-reset_password = admin.reset_password
audit-action-admin-update = admin.update
audit-action-auth_providers-update = auth_providers.update
audit-action-category-archive = category.archive
audit-action-category-create = category.create
audit-action-category-update = category.update
audit-action-knowledge_card-update = knowledge_card.update
audit-action-player-ban = player.ban
audit-action-player-fair_play = player.fair_play
audit-action-player-fair_play_hold = player.fair_play_hold
audit-action-player-unban = player.unban
audit-action-question-auto_review = question.auto_review
audit-action-question-batch_archive = question.batch_archive
audit-action-question-batch_delete = question.batch_delete
audit-action-question-batch_publish = question.batch_publish
audit-action-question-batch_review = question.batch_review
audit-action-question-create = question.create
audit-action-question-delete = question.delete
audit-action-question-export = question.export
audit-action-question-import = question.import
audit-action-question-import_csv = question.import_csv
audit-action-question-revert = question.revert
audit-action-question-status = question.status
audit-action-question-update = question.update
audit-action-skill_node-create = skill_node.create
audit-action-skill_node-delete = skill_node.delete
audit-action-skill_node-update = skill_node.update

## the statutory holiday calendar and minors
nav-holidays = Holidays
hol-title = Statutory holidays
hol-intro = Under the licensed-game profile, minors may play from 20:00 to 21:00 Beijing time on Fridays, Saturdays, Sundays and the statutory holidays listed here. A make-up working day on a weekend changes nothing. Every change is in the audit log.
hol-profile = Compliance profile in use:
hol-profile-unused = the calendar applies only under licensed_game
hol-day = Day
hol-name = Name
hol-add = Add or rename
hol-col-day = Day
hol-col-name = Name
hol-col-by = Added by
hol-remove = Remove
hol-empty = No holidays in the calendar.
hol-done-put = { $day } is a statutory holiday.
hol-done-removed = { $day } is an ordinary day again.
compliance-profile-education = Education (minor mode by declaration)
compliance-profile-licensed_game = Licensed game (NPPA real-name verification)
dash-compliance-profile = Compliance profile:
people-minor-mode = Minor mode
people-minor-mode-off = Off
people-declared-band = declared: { $band }
people-real-name = Real-name verification
people-adult = adult
people-minor = minor
age-band-under8 = Under 8
age-band-8to12 = 8 to 12
age-band-12to16 = 12 to 16
age-band-16to18 = 16 to 18
age-band-adult = Adult
real-name-status-unverified = Not verified
real-name-status-pending = Pending
real-name-status-verified = Verified
real-name-status-failed = Failed
people-guardian-pin-reset = Reset the guardian PIN
people-guardian-pin-reset-help = Only at the guardian's request, once they have proved who they are: a new PIN replaces the old one.
people-flash-guardian-pin = The new guardian PIN is { $pin }: hand it to the guardian. It is not shown again.
