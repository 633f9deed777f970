-- Exact row counts of the long admin lists, kept by triggers in the writing transaction,
-- so a page's `pagination.total` is a read of a row, not a count of the table. (SQLite
-- has one writer at a time: one slot per count; PostgreSQL spreads them over 16.)
CREATE TABLE row_counts (
    name  TEXT NOT NULL,
    slot  INTEGER NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (name, slot)
);
INSERT INTO row_counts (name, slot, n) VALUES
    ('audit_log', 0, (SELECT count(*) FROM audit_log)),
    ('feedback', 0, (SELECT count(*) FROM feedback)),
    ('knowledge_cards', 0, (SELECT count(*) FROM knowledge_cards)),
    ('questions', 0, (SELECT count(*) FROM questions)),
    ('live_players', 0, (SELECT count(*) FROM players WHERE deleted_at IS NULL AND merged_into IS NULL));

CREATE TRIGGER audit_log_counted_insert AFTER INSERT ON audit_log BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'audit_log' AND slot = 0;
END;
CREATE TRIGGER audit_log_counted_delete AFTER DELETE ON audit_log BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'audit_log' AND slot = 0;
END;
CREATE TRIGGER feedback_counted_insert AFTER INSERT ON feedback BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'feedback' AND slot = 0;
END;
CREATE TRIGGER feedback_counted_delete AFTER DELETE ON feedback BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'feedback' AND slot = 0;
END;
CREATE TRIGGER knowledge_cards_counted_insert AFTER INSERT ON knowledge_cards BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'knowledge_cards' AND slot = 0;
END;
CREATE TRIGGER knowledge_cards_counted_delete AFTER DELETE ON knowledge_cards BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'knowledge_cards' AND slot = 0;
END;
CREATE TRIGGER questions_counted_insert AFTER INSERT ON questions BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'questions' AND slot = 0;
END;
CREATE TRIGGER questions_counted_delete AFTER DELETE ON questions BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'questions' AND slot = 0;
END;

-- Live players: neither deleted nor merged into another.
CREATE TRIGGER players_counted_insert AFTER INSERT ON players
WHEN NEW.deleted_at IS NULL AND NEW.merged_into IS NULL BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'live_players' AND slot = 0;
END;
CREATE TRIGGER players_counted_update AFTER UPDATE OF deleted_at, merged_into ON players BEGIN
    UPDATE row_counts
    SET n = n + (NEW.deleted_at IS NULL AND NEW.merged_into IS NULL)
              - (OLD.deleted_at IS NULL AND OLD.merged_into IS NULL)
    WHERE name = 'live_players' AND slot = 0;
END;
CREATE TRIGGER players_counted_delete AFTER DELETE ON players
WHEN OLD.deleted_at IS NULL AND OLD.merged_into IS NULL BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'live_players' AND slot = 0;
END;

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
