-- A player's tier lives in subscriptions only (one source of truth).
ALTER TABLE players DROP COLUMN tier;
