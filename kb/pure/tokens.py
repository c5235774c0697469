"""Turning text into the words both scorers compare.

Rules of this module:
- Fold a fixed table of Portuguese/Spanish accents, nothing else (no Unicode decomposition):
  the notes are written in English and Portuguese and the table is what their authors type.
- A word is a maximal run of alphanumeric characters; only A-Z are lowercased.
- Words of one UTF-8 byte are dropped (stray letters and digits), then stopwords.
- No stemming and no de-duplication: a repeated question word scores again.
"""

from __future__ import annotations

import re

_FOLD_PAIRS = {
    "a": "áàãâäÁÀÃÂÄ",
    "e": "éèêëÉÈÊË",
    "i": "íìîïÍÌÎÏ",
    "o": "óòõôöÓÒÕÔÖ",
    "u": "úùûüÚÙÛÜ",
    "c": "çÇ",
    "n": "ñÑ",
}
_FOLD = {ord(ch): plain for plain, chars in _FOLD_PAIRS.items() for ch in chars}
_ASCII_LOWER = {ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}

_ENGLISH = """
the a an is are was were am be been being do does did have has had will would can could
should shall may might must i we you he she it they them me us him her my our your his its
their mine ours yours theirs this that these those of to in on for with as at by from up out
off over under into about after before between through and or but if so not no yes what how
who when where why which than then there here just also too very now let lets like own some
any all more most new old first last next small big large good bad best worst high low long
short full real true false
"""
_PORTUGUESE = """
o os as um uma uns umas de da do das dos em no na nos nas para por com sem ao aos pelo pela
pelos pelas num numa ate entre sobre eu voce voces ele ela eles elas te me mim lhe meu minha
meus minhas seu sua seus suas nosso nossa nossos nossas teu tua isso isto aquilo esse essa
esses essas este esta estes estas ser sou era foi sao estou estao estava ter tem tenho tinha
vou vai vamos pode posso podemos deve devo fazer faz quero quer dar e ou mas se que qual
quais como quem quanto quanta quantos quantas quando onde porque nao sim ja la mais menos
muito muita muitos muitas tambem ai so apenas ainda agora hoje tudo todo toda todos todas
outro outra entao assim aqui ali novo nova novos novas velho velha primeiro primeira ultimo
ultima proximo proxima pequeno pequena grande grandes bom boa ruim melhor pior alto alta
baixo baixa longo curto cheio vazio certo errado
"""
# 289 distinct words: each one was a measured misroute or pure noise in real questions
# (`out`, `like`, `you` once outranked real keys at 28-39 points).
STOPWORDS: frozenset[str] = frozenset(_ENGLISH.split()) | frozenset(_PORTUGUESE.split())


def fold(text: str) -> str:
    """Fold the accent table and lowercase A-Z only."""
    return text.translate(_FOLD).translate(_ASCII_LOWER)


# Python's \w is exactly str.isalnum() plus the underscore, so this is "runs of alphanumerics".
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Split folded text into alphanumeric runs, without dropping anything."""
    return _WORD.findall(fold(text))


def _kept(word: str) -> bool:
    if word in STOPWORDS:
        return False
    # One byte is a lone ASCII letter or digit; a lone non-ASCII letter is two bytes and stays.
    return len(word) > 1 or ord(word) > 0x7F


def normalise(text: str) -> list[str]:
    """The words of `text` that either scorer may compare, in order, duplicates kept."""
    return [w for w in words(text) if _kept(w)]
