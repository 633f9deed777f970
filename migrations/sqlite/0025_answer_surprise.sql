-- A first answer's surprise (outcome − predicted success), recorded by the answer: the
-- calibration job's fold moves the question's difficulty by it, in answer order, instead
-- of every answer updating one shared row per question (issue 30: measured, that row
-- serialised the answers of a popular question and bloated between vacuums).
ALTER TABLE challenge_answers ADD COLUMN surprise REAL;
