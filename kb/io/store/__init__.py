"""One base's SQLite database at `<base>/.kb/index.db`, one module per job:

- `database`: the `Store`, which opens the database (or stands in for it) and hands out the
  jobs below as `store.headers`, `store.keywords`, `store.vocabulary`, `store.ranking`,
  `store.text`, `store.writer` and `store.warm_copy`;
- `schema`: the tables, their version stamp and migration, the connection settings;
- `headers`: the header cache (`HeaderCache`) and the header types;
- `keywords`: the keyword postings (`KeywordPostings`);
- `vocabulary`: stem classes, chunk frequencies, `text_words`, calibration (`Vocabulary`);
- `ranking`: bm25 over a question's words, and the span map (`Ranking`);
- `textreader`: stored chunks, pages and excerpts for an answer (`TextReader`);
- `textwriter`: `kb index`'s sync of the text index (`TextWriter`);
- `warm`: the text index held in memory (`WarmCopy`).

The names callers import are re-exported here.
"""

from kb.io.store.database import MAX_OPEN_STORES, Store
from kb.io.store.fileheader import FileHeader, token_sets_of
from kb.io.store.headers import HeaderScan, content_hash, read_header, stat_digest
from kb.io.store.lights import LightHeader, Lights
from kb.io.store.ranking import RANK_ROWID_SQL, RANK_SQL, SpanMap, match_expression
from kb.io.store.schema import (
    BUSY_TIMEOUT_MS,
    HEADER_CACHE_VERSION,
    JUDGED_READS_VERSION,
    StoreError,
    db_path,
    is_busy,
)
from kb.io.store.textreader import counts_from, counts_text
from kb.io.store.textwriter import SyncReport

__all__ = [
    "BUSY_TIMEOUT_MS",
    "HEADER_CACHE_VERSION",
    "JUDGED_READS_VERSION",
    "MAX_OPEN_STORES",
    "RANK_ROWID_SQL",
    "RANK_SQL",
    "FileHeader",
    "HeaderScan",
    "LightHeader",
    "Lights",
    "SpanMap",
    "Store",
    "StoreError",
    "SyncReport",
    "content_hash",
    "counts_from",
    "counts_text",
    "db_path",
    "is_busy",
    "match_expression",
    "read_header",
    "stat_digest",
    "token_sets_of",
]
