"""A held base's own bm25 ranking summed by numpy, where numpy is installed: what
`WarmText.top_of_every_score` returns, to the bit, in a few vectorised steps.

A base's ranking sums each question word's idf times its term weight over every chunk
holding a word, and keeps the best `limit` (decision 0037). In Python that is a dict built
per word and a loop over the chunks two words share, about 90 us a base at 10,000 generated
notes and most of a long question's time: numpy does it in about 24 us (measured on 2,479
rankings of 250 answerable questions, every one identical; decision 0052).

The sums are the same floats: each product is one IEEE multiplication either way, and
`numpy.bincount` adds a chunk's products in the order they are given (word order, from 0.0,
and 0.0 + x is x), as `WarmText.scores` does. The arrays are views of the held postings, so
holding them costs nothing but the private chunks' places.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np
import numpy.typing as npt
from attrs import frozen

# A base's ranking sums only its words' postings, not an array of every chunk: always for
# one word (its postings are its chunks, in place order, never more than the base holds),
# and for several when they hold fewer postings than the base's chunks by this factor (their
# places are sorted to find each chunk once: a fixed cost the whole array beats on small
# bases). Measured per ranking of 200 answerable questions, postings only against every
# chunk, by chunks per posting:
#   100,000 generated notes (~37,000 chunks a base, median 289 postings a ranking):
#     one word, 32 or more: 6 vs 68 us; 4-8: 19 vs 121; 1-2: 46 vs 169
#     several, 32 or more: 21 vs 78 us; 8-32: 45 vs 95; 4-8: 101 vs 126; 1-2: 394 vs 164
#   10,000 (~3,700 chunks a base): one word 4-10 vs 11-18 us at every ratio;
#     several, 8 or more: 17-21 vs 18-21 us; 4-8: 29 vs 24; 1-2: 48 vs 27
SPARSE_BELOW = 8


@frozen(eq=False)
class DenseText:
    """A base's posting arrays seen by numpy (`WarmText.post_chunk`, `post_weight`)."""

    chunk: npt.NDArray[np.intc]  # by posting: the chunk's place j
    weight: npt.NDArray[np.float64]  # by posting: bm25's term weight before idf
    private: npt.NDArray[np.intp]  # the place j of every private chunk
    chunks: int  # how many chunks the base holds

    def top(
        self,
        words: Sequence[tuple[int, int, float]],
        limit: int,
        include_private: bool,
    ) -> list[tuple[int, float]]:
        """The best `limit` (chunk place, score), best first, equal scores by rowid, over
        the postings `lo`..`hi` of each word (`(lo, hi, idf)`, in question order), private
        chunks left out unless `include_private`."""
        if not words or limit <= 0:
            return []
        postings = sum(hi - lo for lo, hi, _ in words)
        if len(words) == 1 or postings * SPARSE_BELOW < self.chunks:
            held, values = self._sums_of_postings(words, include_private)
        else:
            held, values = self._sums_of_every_chunk(words, include_private)
        if held.size > limit:
            cut = held.size - limit
            line = np.partition(values, cut)[cut]  # the limit-th best score
            keep = values >= line  # and every chunk tied with it
            held, values = held[keep], values[keep]
        # `held` is in place order, which is rowid order: a stable sort by score alone
        # breaks ties by rowid
        ranked = sorted(zip(held.tolist(), values.tolist(), strict=True), key=lambda js: -js[1])
        return ranked[:limit]

    def _sums_of_every_chunk(
        self, words: Sequence[tuple[int, int, float]], include_private: bool
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        """The places, ascending, of the chunks holding a word, and their sums: summed into
        an array of every chunk of the base."""
        sums: npt.NDArray[np.float64]
        if len(words) == 1:
            # one word holds a chunk once: its products are the scores as they are
            lo, hi, idf = words[0]
            sums = np.zeros(self.chunks)
            sums[self.chunk[lo:hi]] = idf * self.weight[lo:hi]
        else:
            places = np.concatenate([self.chunk[lo:hi] for lo, hi, _ in words])
            parts = np.concatenate([idf * self.weight[lo:hi] for lo, hi, idf in words])
            # with weights, bincount sums in float64 (numpy's stubs say only "an array")
            sums = cast(
                npt.NDArray[np.float64], np.bincount(places, weights=parts, minlength=self.chunks)
            )
        if not include_private and self.private.size:
            sums[self.private] = 0.0
        # every product is above 0 (an idf is floored above 0, a term weight has a count
        # above 0), so the chunks holding a word are exactly those with a sum
        held = np.flatnonzero(sums)
        return held, sums[held]

    def _sums_of_postings(
        self, words: Sequence[tuple[int, int, float]], include_private: bool
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        """`_sums_of_every_chunk`'s places and sums, touching only the words' postings: the
        chunks are found by sorting their places once, and each chunk's products are added
        in word order from 0.0 by the same bincount, so the floats are the same."""
        if len(words) == 1:
            lo, hi, idf = words[0]
            held = self.chunk[lo:hi].astype(np.intp)  # a word's postings are in place order
            values = idf * self.weight[lo:hi]
        else:
            places = np.concatenate([self.chunk[lo:hi] for lo, hi, _ in words])
            parts = np.concatenate([idf * self.weight[lo:hi] for lo, hi, idf in words])
            held, inverse = np.unique(places, return_inverse=True)
            # each chunk's products added in the order given, which is word order
            values = cast(npt.NDArray[np.float64], np.bincount(inverse, weights=parts))
        if not include_private and self.private.size:
            public = ~np.isin(held, self.private, assume_unique=True)
            held, values = held[public], values[public]
        # every product is above 0, so each chunk here has a sum, as the other way keeps
        return held, values


def dense_of(
    post_chunk: array[int] | memoryview[int],
    post_weight: array[float] | memoryview[float],
    private: Iterable[int],
    chunks: int,
) -> DenseText:
    """numpy's views of a base's postings, typed by the arrays' own formats (a C int and a
    C double): no copy, since the arrays are never changed once held (and a mapped
    postings file's are read-only)."""
    return DenseText(
        chunk=np.asarray(memoryview(post_chunk)),
        weight=np.asarray(memoryview(post_weight)),
        private=np.fromiter(sorted(private), dtype=np.intp),
        chunks=chunks,
    )
