-- Exact row counts of the long admin lists, kept by triggers in the writing transaction,
-- so a page's `pagination.total` is a read of a few rows, not a count of the table.
-- PostgreSQL spreads each count over 16 slots, picked at random per statement, so
-- concurrent writers (sign-ups) rarely wait on the same row; the count is their sum.
CREATE TABLE row_counts (
    name  TEXT NOT NULL,
    slot  BIGINT NOT NULL,
    n     BIGINT NOT NULL,
    PRIMARY KEY (name, slot)
);
INSERT INTO row_counts (name, slot, n)
SELECT c.name, s.slot, 0
FROM (VALUES ('audit_log'), ('feedback'), ('knowledge_cards'), ('questions'), ('live_players')) AS c (name)
CROSS JOIN generate_series(0, 15) AS s (slot);
UPDATE row_counts SET n = (SELECT count(*) FROM audit_log) WHERE name = 'audit_log' AND slot = 0;
UPDATE row_counts SET n = (SELECT count(*) FROM feedback) WHERE name = 'feedback' AND slot = 0;
UPDATE row_counts SET n = (SELECT count(*) FROM knowledge_cards) WHERE name = 'knowledge_cards' AND slot = 0;
UPDATE row_counts SET n = (SELECT count(*) FROM questions) WHERE name = 'questions' AND slot = 0;
UPDATE row_counts SET n = (SELECT count(*) FROM players WHERE deleted_at IS NULL AND merged_into IS NULL)
WHERE name = 'live_players' AND slot = 0;

CREATE FUNCTION row_counts_add(counter TEXT, delta BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    picked BIGINT := CAST(floor(random() * 16) AS BIGINT);
BEGIN
    IF delta <> 0 THEN
        UPDATE row_counts SET n = n + delta WHERE name = counter AND slot = picked;
    END IF;
END
$$;

-- Statement triggers with transition tables: one counter update per statement, however
-- many rows it wrote.
CREATE FUNCTION row_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM row_counts_add(TG_ARGV[0], (SELECT count(*) FROM new_rows));
    RETURN NULL;
END
$$;
CREATE FUNCTION row_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM row_counts_add(TG_ARGV[0], -(SELECT count(*) FROM old_rows));
    RETURN NULL;
END
$$;
CREATE TRIGGER audit_log_counted_insert AFTER INSERT ON audit_log
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_inserted('audit_log');
CREATE TRIGGER audit_log_counted_delete AFTER DELETE ON audit_log
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_deleted('audit_log');
CREATE TRIGGER feedback_counted_insert AFTER INSERT ON feedback
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_inserted('feedback');
CREATE TRIGGER feedback_counted_delete AFTER DELETE ON feedback
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_deleted('feedback');
CREATE TRIGGER knowledge_cards_counted_insert AFTER INSERT ON knowledge_cards
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_inserted('knowledge_cards');
CREATE TRIGGER knowledge_cards_counted_delete AFTER DELETE ON knowledge_cards
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_deleted('knowledge_cards');
CREATE TRIGGER questions_counted_insert AFTER INSERT ON questions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_inserted('questions');
CREATE TRIGGER questions_counted_delete AFTER DELETE ON questions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION row_counts_deleted('questions');

-- Live players: neither deleted nor merged into another.
CREATE FUNCTION live_players_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta BIGINT := 0;
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        delta := delta + (SELECT count(*) FROM new_rows WHERE deleted_at IS NULL AND merged_into IS NULL);
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        delta := delta - (SELECT count(*) FROM old_rows WHERE deleted_at IS NULL AND merged_into IS NULL);
    END IF;
    PERFORM row_counts_add('live_players', delta);
    RETURN NULL;
END
$$;
CREATE TRIGGER players_counted_insert AFTER INSERT ON players
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION live_players_changed();
CREATE TRIGGER players_counted_update AFTER UPDATE ON players
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION live_players_changed();
CREATE TRIGGER players_counted_delete AFTER DELETE ON players
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION live_players_changed();

-- Pages read from either end in the list's order (see db::paging).
CREATE INDEX audit_log_order ON audit_log (created_at, id);
DROP INDEX audit_log_created;
CREATE INDEX feedback_order ON feedback (created_at, id);
DROP INDEX feedback_created;
CREATE INDEX knowledge_cards_order ON knowledge_cards (created_at, id);
DROP INDEX knowledge_cards_created;
CREATE INDEX players_live_order ON players (created_at DESC, id)
    WHERE deleted_at IS NULL AND merged_into IS NULL;
CREATE INDEX questions_created_order ON questions (created_at, id);
DROP INDEX questions_created;
CREATE INDEX questions_updated_order ON questions (updated_at, id);
DROP INDEX questions_updated;
CREATE INDEX questions_difficulty_order ON questions (difficulty, id);
