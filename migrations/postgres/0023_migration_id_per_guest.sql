-- A link's clientMigrationId is the guest's own (issue 28): two players may send the
-- same id, and a guest replays only its own. The owner joins the key, first, so the
-- account deletion's `DELETE … WHERE owner_id = $1` reads the key's index. The table
-- holds one row per link, so rebuilding its key under a lock is brief.
ALTER TABLE idempotency_records
    DROP CONSTRAINT idempotency_records_pkey,
    ADD PRIMARY KEY (owner_id, scope, key);
