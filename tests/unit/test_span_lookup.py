"""A ranked chunk's file is found alike one rowid at a time and in one batch."""

from __future__ import annotations

from pathlib import Path

from kb.io.notes.indexer import index_bases
from kb.io.store import SpanMap, Store


def _fleet(root: Path) -> Path:
    base = root / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "records").mkdir()
    (base / "agent.txt").write_text("name = Ada\n")
    (base / "MAP.md").write_text("# Map\n\n### knowledge/\n- [[knowledge/n0]]\n")
    for i in range(6):
        sections = "\n".join(f"## Part {j}\n\n" + "tide " * 40 * (j + 1) for j in range(i % 3 + 1))
        (base / "knowledge" / f"n{i}.md").write_text(
            f"# Note {i}\n\n**Search for:** tide {i}\n\n{sections}\n"
        )
    (base / "knowledge" / "empty.md").write_text("")
    (base / "records" / "private.md").write_text("# Private\n\nsecret tide words\n")
    return base


def test_find_all_answers_as_find(tmp_path: Path) -> None:
    base = _fleet(tmp_path)
    index_bases([str(tmp_path)], True)
    store = Store.open(base)
    try:
        rowids = [r for (r,) in store.conn.execute("SELECT rowid FROM chunks")]
        assert len(rowids) > 8
        probes = [*rowids, 0, -1, max(rowids) + 1, max(rowids) + 1000, rowids[0]]
        one_by_one = SpanMap(store.conn)
        batched = SpanMap(store.conn)
        batched.find_all(probes)
        expected = [one_by_one.find(r) for r in probes]
        assert [batched.find(r) for r in probes] == expected
        assert any(found is not None and found[2] for found in expected)  # a private chunk
        assert expected[len(rowids)] is None and expected[-2] is None
    finally:
        store.close()
