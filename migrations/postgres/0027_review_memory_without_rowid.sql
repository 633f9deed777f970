-- Spaced review (issue 31): the SQLite migration of this number keeps `review_memory` in
-- its key's B-tree. PostgreSQL's table and indexes stay as 0026 made them; this one keeps
-- both engines' version numbers in step.
-- Phase: expand (nothing changes).
SELECT 1;
