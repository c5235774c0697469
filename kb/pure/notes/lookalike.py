"""Names compared as people see them: the private layer's folder names against the disk's.

Rules of this module:
- Two names look alike when their skeletons are equal (`skeleton`): compatibility
  normalisation (NFKC: full-width letters, ligatures), every character of the
  `CONFUSABLES` table replaced by the Latin letter it is drawn like (Cyrillic and Greek
  homoglyphs, the digits 0 and 1), then case folding and NFC. So `résumé` typed in NFD
  names the folder `résumé` stored in NFC, `Records` names `records`, and `rеcords` with a
  Cyrillic `е`, `RЕCORDS`, `rec0rds` and `ｒｅｃｏｒｄｓ` all have the skeleton `records`.
- A private name covers every folder that looks like it (fail closed): a folder renamed to
  a look-alike of `records/` stays private, and is warned about (`lookalike_message`), on
  every verb that opens the base, because a person cannot tell it from the real one. A
  spelling that differs only in Unicode form (NFC against NFD: what macOS stores against
  what a keyboard types) is one spelling, and not warned about (`spelled_alike`).
- The table is small on purpose: the Latin letters a-z, as Cyrillic and Greek draw them
  in the fonts a terminal and a file manager use. It is not Unicode's full confusables
  list; a private name in another script is compared by normalisation and case alone.
"""

from __future__ import annotations

import functools
import unicodedata

# Each character to the Latin letter it is drawn like: upper case to upper case and lower to
# lower, so case folding afterwards treats both alike (`В` is drawn as a Latin B, `в` as no b).
CONFUSABLES: dict[str, str] = {
    # Cyrillic, lower case
    "а": "a", "ь": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k",
    "ӏ": "l", "м": "m", "п": "n", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t",
    "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "ү": "y",
    # Cyrillic, upper case
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "Ӏ": "l",
    "М": "M", "О": "O", "Р": "P", "Ԛ": "Q", "Ѕ": "S", "Т": "T", "Ѵ": "V", "Ԝ": "W", "Х": "X",
    "У": "Y", "Ү": "Y",
    # Greek, lower case
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "n", "ι": "i", "ϳ": "j", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w",
    # Greek, upper case
    "Α": "A", "Β": "B", "Ϲ": "C", "Ε": "E", "Η": "H", "Ι": "I", "Ϳ": "J", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ζ": "Z",
    # Latin letters drawn like others, and digits drawn like letters
    "ı": "i", "ȷ": "j", "ɡ": "g", "ɑ": "a", "0": "o", "1": "l", "|": "l",
}  # fmt: skip

_TABLE = str.maketrans(CONFUSABLES)


def _skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons are names a reader cannot tell apart."""
    if name.isascii() and "0" not in name and "1" not in name and "|" not in name:
        return name.lower()  # the common case, at C speed
    # the table before NFKC (which turns some of its letters, the lunate sigma, into others)
    # and after it (for what NFKC makes of full-width and other compatibility forms)
    shown = unicodedata.normalize("NFKC", name.translate(_TABLE)).translate(_TABLE)
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", shown).casefold())


# Cached by wrapping rather than by decorating, so that a mutation run (tests/mutation, which
# leaves decorated functions alone) reaches the rule itself.
skeleton = functools.lru_cache(maxsize=4096)(_skeleton)


def looks_like(a: str, b: str) -> bool:
    """Whether a reader could take `a` for `b` (the same name included)."""
    return a == b or skeleton(a) == skeleton(b)


def path_skeleton(rel: str) -> tuple[str, ...]:
    """The skeleton of each `/`-separated segment of `rel`."""
    return tuple(skeleton(part) for part in rel.split("/"))


def spelled_alike(a: str, b: str) -> bool:
    """Whether `a` and `b` differ at most in Unicode form (NFC against NFD): one spelling,
    which no one needs to be told about."""
    return a == b or unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def how_alike(private: str, found: str) -> str:
    """Why `found` is taken for `private` (they look alike and are not spelled alike)."""
    nfc = unicodedata.normalize
    if nfc("NFC", private).casefold() == nfc("NFC", found).casefold():
        return "the same name in other letter case"
    return "drawn like it, in letters of another script or digits"


def lookalike_message(base: str, found: tuple[tuple[str, str], ...]) -> str | None:
    """One line naming every folder of `base` kept private as a look-alike of a private
    name, or None when there is none. `found` holds (private name, folder on disk)."""
    if not found:
        return None
    named = "; ".join(
        f"the folder `{folder}/` is kept private as `{private}` ({how_alike(private, folder)})"
        for private, folder in found
    )
    return (
        f"{base}: {named}. Rename the folder, or write in agent.txt what is private as the "
        "disk spells it"
    )
