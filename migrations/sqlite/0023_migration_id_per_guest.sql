-- A link's clientMigrationId is the guest's own (issue 28): two players may send the
-- same id, and a guest replays only its own. The owner joins the key, first, so the
-- account deletion's `DELETE … WHERE owner_id = $1` reads the key's index. SQLite
-- cannot change a primary key in place: the table is copied (one row per link).
CREATE TABLE idempotency_records_by_owner (
    scope       TEXT NOT NULL,
    key         TEXT NOT NULL,
    owner_id    TEXT NOT NULL,
    response    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (owner_id, scope, key)
);
INSERT INTO idempotency_records_by_owner (scope, key, owner_id, response, created_at)
SELECT scope, key, owner_id, response, created_at FROM idempotency_records;
DROP TABLE idempotency_records;
ALTER TABLE idempotency_records_by_owner RENAME TO idempotency_records;
-- what the retention job purges, found by index (see db::retention)
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
