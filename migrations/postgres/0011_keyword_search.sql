-- Keyword search over an index (issue 17; docs/decisions.md, "Keyword search"): the
-- admin question list's keyword and the admin player search match `LOWER(column) LIKE
-- '%…%' ESCAPE '\'`, which pg_trgm's GIN operator class answers from an index (with a
-- recheck, so the results are the LIKE's exactly) when the text holds 3 or more
-- characters. Each index is on the very expression the queries lower.
--
-- The extension is the database's, not a schema's: it is created in `public`, so a
-- schema dropped later (the tests run one per test) never takes it along. When it is
-- already installed, in whatever schema, that one is used. Two transactions creating it
-- at once would both insert it and one fail with a unique violation; sqlx's migrator
-- already takes a lock per database, and this transaction-scoped advisory lock keeps it
-- so for anything that runs the file without it (the second waits for the first to
-- commit, then finds the extension).
DO $$
DECLARE
    trgm_schema TEXT;
BEGIN
    -- the key: the bytes of 'pg_trgm' as a number
    PERFORM pg_advisory_xact_lock(31638857064802157);
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
    SELECT n.nspname INTO trgm_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';

    EXECUTE format('CREATE INDEX questions_stem_trgm ON questions
                    USING gin (LOWER(stem_text) %I.gin_trgm_ops)', trgm_schema);
    EXECUTE format('CREATE INDEX questions_distractors_trgm ON questions
                    USING gin (LOWER(distractors) %I.gin_trgm_ops)', trgm_schema);
    EXECUTE format('CREATE INDEX players_id_trgm ON players
                    USING gin (LOWER(id) %I.gin_trgm_ops)', trgm_schema);
    EXECUTE format('CREATE INDEX players_nickname_trgm ON players
                    USING gin (LOWER(COALESCE(nickname, %L)) %I.gin_trgm_ops)', '', trgm_schema);
    -- a guest's device id is never searched (it is its only credential): not indexed
    EXECUTE format('CREATE INDEX player_identities_subject_trgm ON player_identities
                    USING gin (LOWER(subject) %I.gin_trgm_ops) WHERE provider <> %L',
                   trgm_schema, 'device');
END
$$;
