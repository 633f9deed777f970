-- Keyword search over an index (issue 17; docs/decisions.md, "Keyword search"): FTS5
-- tables with the trigram tokenizer (folding case) find the candidate rows of a keyword
-- of 3 or more characters; the queries then keep the `LOWER(column) LIKE '%…%'
-- ESCAPE '\'` test, so the results are exactly the LIKE's.
--
-- Each FTS row is keyed by an INTEGER PRIMARY KEY of a key table (the FTS rowid), not by
-- the source table's implicit rowid, which VACUUM may renumber. Triggers keep both in
-- step with every insert, update and delete (a foreign key's cascade fires them too).

CREATE TABLE question_search_keys (
    n            INTEGER PRIMARY KEY,
    question_id  TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE question_search USING fts5 (stem_text, distractors, tokenize = 'trigram');

CREATE TRIGGER question_search_insert AFTER INSERT ON questions BEGIN
    INSERT INTO question_search_keys (question_id) VALUES (new.id);
    INSERT INTO question_search (rowid, stem_text, distractors)
        SELECT n, new.stem_text, new.distractors FROM question_search_keys WHERE question_id = new.id;
END;
CREATE TRIGGER question_search_update AFTER UPDATE OF id, stem_text, distractors ON questions BEGIN
    UPDATE question_search_keys SET question_id = new.id WHERE question_id = old.id;
    UPDATE question_search SET stem_text = new.stem_text, distractors = new.distractors
        WHERE rowid = (SELECT n FROM question_search_keys WHERE question_id = new.id);
END;
CREATE TRIGGER question_search_delete AFTER DELETE ON questions BEGIN
    DELETE FROM question_search
        WHERE rowid = (SELECT n FROM question_search_keys WHERE question_id = old.id);
    DELETE FROM question_search_keys WHERE question_id = old.id;
END;

INSERT INTO question_search_keys (question_id) SELECT id FROM questions;
INSERT INTO question_search (rowid, stem_text, distractors)
    SELECT k.n, q.stem_text, q.distractors
    FROM question_search_keys k JOIN questions q ON q.id = k.question_id;

-- players: the id and the nickname
CREATE TABLE player_search_keys (
    n          INTEGER PRIMARY KEY,
    player_id  TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE player_search USING fts5 (id, nickname, tokenize = 'trigram');

CREATE TRIGGER player_search_insert AFTER INSERT ON players BEGIN
    INSERT INTO player_search_keys (player_id) VALUES (new.id);
    INSERT INTO player_search (rowid, id, nickname)
        SELECT n, new.id, new.nickname FROM player_search_keys WHERE player_id = new.id;
END;
CREATE TRIGGER player_search_update AFTER UPDATE OF id, nickname ON players BEGIN
    UPDATE player_search_keys SET player_id = new.id WHERE player_id = old.id;
    UPDATE player_search SET id = new.id, nickname = new.nickname
        WHERE rowid = (SELECT n FROM player_search_keys WHERE player_id = new.id);
END;
CREATE TRIGGER player_search_delete AFTER DELETE ON players BEGIN
    DELETE FROM player_search
        WHERE rowid = (SELECT n FROM player_search_keys WHERE player_id = old.id);
    DELETE FROM player_search_keys WHERE player_id = old.id;
END;

INSERT INTO player_search_keys (player_id) SELECT id FROM players;
INSERT INTO player_search (rowid, id, nickname)
    SELECT k.n, p.id, p.nickname FROM player_search_keys k JOIN players p ON p.id = k.player_id;

-- sign-in subjects, except a guest's device id: it is never searched (it is the guest's
-- only credential), so it is not indexed either
CREATE TABLE identity_search_keys (
    n         INTEGER PRIMARY KEY,
    provider  TEXT NOT NULL,
    subject   TEXT NOT NULL,
    UNIQUE (provider, subject)
);
CREATE VIRTUAL TABLE identity_search USING fts5 (subject, tokenize = 'trigram');

CREATE TRIGGER identity_search_insert AFTER INSERT ON player_identities
WHEN new.provider <> 'device' BEGIN
    INSERT INTO identity_search_keys (provider, subject) VALUES (new.provider, new.subject);
    INSERT INTO identity_search (rowid, subject)
        SELECT n, new.subject FROM identity_search_keys
        WHERE provider = new.provider AND subject = new.subject;
END;
CREATE TRIGGER identity_search_update AFTER UPDATE OF provider, subject ON player_identities BEGIN
    DELETE FROM identity_search
        WHERE rowid = (SELECT n FROM identity_search_keys
                       WHERE provider = old.provider AND subject = old.subject);
    DELETE FROM identity_search_keys WHERE provider = old.provider AND subject = old.subject;
    INSERT INTO identity_search_keys (provider, subject)
        SELECT new.provider, new.subject WHERE new.provider <> 'device';
    INSERT INTO identity_search (rowid, subject)
        SELECT n, new.subject FROM identity_search_keys
        WHERE provider = new.provider AND subject = new.subject;
END;
CREATE TRIGGER identity_search_delete AFTER DELETE ON player_identities
WHEN old.provider <> 'device' BEGIN
    DELETE FROM identity_search
        WHERE rowid = (SELECT n FROM identity_search_keys
                       WHERE provider = old.provider AND subject = old.subject);
    DELETE FROM identity_search_keys WHERE provider = old.provider AND subject = old.subject;
END;

INSERT INTO identity_search_keys (provider, subject)
    SELECT provider, subject FROM player_identities WHERE provider <> 'device';
INSERT INTO identity_search (rowid, subject)
    SELECT n, subject FROM identity_search_keys;
