-- Admin sign-in hardening: failure throttling, TOTP second factor, recovery codes.

-- Failed admin sign-ins per counter and fixed window (service clock). scope_key is
-- 'user:' + the SHA-256 of the submitted username (a password typed into the username
-- field is never stored) or 'addr:' + the client address key (IPv4, or IPv6 /64).
-- An attempt reserves its place before its password is checked (a conditional upsert on
-- the primary key), so concurrent guesses cannot all be judged; a success gives it back.
CREATE TABLE admin_sign_in_failures (
    scope_key     TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    -- the window's end: rows past it are swept on the next reservation
    expires_at    BIGINT NOT NULL,
    failures      BIGINT NOT NULL,
    PRIMARY KEY (scope_key, window_start)
);
CREATE INDEX admin_sign_in_failures_expiry ON admin_sign_in_failures (expires_at);

-- An admin's TOTP (RFC 6238) secrets, base32. pending_secret waits for its first code;
-- secret set means MFA is on. last_used_step is the last time step a code was accepted
-- for: only later steps are accepted, so a code works once.
CREATE TABLE admin_mfa (
    admin_id        TEXT PRIMARY KEY REFERENCES admins (id),
    pending_secret  TEXT,
    secret          TEXT,
    last_used_step  BIGINT NOT NULL DEFAULT 0,
    enabled_at      BIGINT,
    updated_at      BIGINT NOT NULL
);

-- One-time recovery codes, stored as SHA-256 (they are random, 80 bits each); a code is
-- spent by deleting its row.
CREATE TABLE admin_recovery_codes (
    admin_id    TEXT NOT NULL REFERENCES admins (id),
    code_hash   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (admin_id, code_hash)
);
