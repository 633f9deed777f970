-- Media of questions (issue 32): images, audio and video. The file is in the media store
-- (MEDIA_STORE) under `{id}.{ext}`; its id is the SHA-256 of the stored bytes, so a file
-- uploaded twice is one row and one object. A question names at most one file, with the
-- text a screen reader says for it; its versions keep what each served.
-- Phase: expand (new table and nullable columns; older binaries ignore them).
CREATE TABLE media (
    id            TEXT PRIMARY KEY,      -- 64 lowercase hex digits
    kind          TEXT NOT NULL,         -- image | audio | video
    mime          TEXT NOT NULL,         -- the type it is served with
    bytes         BIGINT NOT NULL,
    width         BIGINT,                -- images
    height        BIGINT,
    duration_ms   BIGINT,                -- audio and video, when the container says
    created_by    TEXT NOT NULL,         -- admin username
    created_at    BIGINT NOT NULL,
    -- since when no question has used it (set at upload and when its last question lets
    -- go of it; NULL while one uses it): the unused-media job's clock
    unused_since  BIGINT
);
CREATE INDEX media_newest ON media (created_at DESC, id DESC);
CREATE INDEX media_unused ON media (unused_since) WHERE unused_since IS NOT NULL;

ALTER TABLE questions ADD COLUMN media_id TEXT REFERENCES media (id);
ALTER TABLE questions ADD COLUMN media_alt TEXT;
CREATE INDEX questions_media ON questions (media_id) WHERE media_id IS NOT NULL;

ALTER TABLE question_versions ADD COLUMN media_id TEXT;
ALTER TABLE question_versions ADD COLUMN media_alt TEXT;
