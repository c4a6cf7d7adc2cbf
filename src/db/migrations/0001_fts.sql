-- FTS5 index over retrieval chunks (external content: the text lives once, in chunks).
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `chunks_ai` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_ad` AFTER DELETE ON `chunks` BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_au` AFTER UPDATE ON `chunks` BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
