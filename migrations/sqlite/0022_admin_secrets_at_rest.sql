-- Issue 28, admin accounts.
--
-- Wrong TOTP and recovery codes per admin: a run of wrong codes starts at its first
-- (code_failures_since) and counts for an hour; the 10th locks the second factor until
-- code_locked_until (an hour on) or a super_admin's MFA reset (which deletes the row).
ALTER TABLE admin_mfa ADD COLUMN code_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE admin_mfa ADD COLUMN code_failures_since INTEGER NOT NULL DEFAULT 0;
ALTER TABLE admin_mfa ADD COLUMN code_locked_until INTEGER;

-- Console sessions are stored by the SHA-256 of their id from now on, so a dump of this
-- table signs nobody in. The rows stored so far carry the ids themselves: they go (every
-- console user signs in once more). TOTP secrets are sealed by the service at start
-- (it holds the key), not here.
DELETE FROM console_sessions;
