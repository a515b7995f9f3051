-- The words of the FTS5 indexes, one row per occurrence: counting the
-- occurrences of the words that start with a prefix, up to a limit, reads
-- only that many entries, where an FTS5 prefix query on a long word first
-- merges the lists of every word it starts. The search planner uses it to
-- tell rare words from common ones.
CREATE VIRTUAL TABLE bookings_fts_words USING fts5vocab(bookings_fts, instance);
CREATE VIRTUAL TABLE users_fts_words USING fts5vocab(users_fts, instance);
