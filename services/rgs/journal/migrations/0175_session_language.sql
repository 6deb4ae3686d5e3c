-- The language a session was launched in (issue 28): CreateLaunch's `language` (BCP 47: en, de,
-- es), kept with the session so a page reload or `rgs play` on the same session speaks it
-- (ListVariants, ListTables and GetBalance answer it). NULL: a session opened by CreateSession,
-- or before this migration (the client's own default, English). A nullable column with no
-- default is added without rewriting the table.
ALTER TABLE sessions ADD COLUMN language text;
