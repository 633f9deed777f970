-- The console's language per admin (issue 20): a BCP 47 tag (zh-CN, en) chosen in the
-- console's header; NULL follows the browser's Accept-Language.
ALTER TABLE admins ADD COLUMN language TEXT;
