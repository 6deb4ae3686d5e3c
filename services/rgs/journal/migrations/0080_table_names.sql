-- Shared tables that players and operators can trust (issue 22). A session may carry the
-- nickname its operator gave the player (CreateSession.nickname): tables show it instead of
-- a pseudonym. A table round keeps the display name of each of its players, so an operator's
-- recall names the other operators' players as the table did. Expand only: a previous
-- release's replicas write neither (an empty nickname, a null names), which reads as "no
-- nickname" and "pseudonyms"; adding a column with a constant default rewrites no table.
ALTER TABLE sessions ADD COLUMN nickname text NOT NULL DEFAULT '';
ALTER TABLE table_rounds ADD COLUMN names jsonb;
