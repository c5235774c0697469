"""Which words of a question are read: its own language's stopwords dropped, the other's kept."""

from __future__ import annotations

from kb.pure.notes.tokens import language_of_words, question_terms, words


def test_an_english_question_keeps_words_that_are_only_portuguese_stopwords() -> None:
    # `todo`, `os` and `ai` are Portuguese stopwords and English words
    assert question_terms("remove the lines with a TODO in them") == ["remove", "lines", "todo"]
    assert question_terms("the OS setting for dark mode") == ["os", "setting", "dark", "mode"]
    assert question_terms("how do I hide the AI answer") == ["hide", "ai", "answer"]


def test_a_portuguese_question_keeps_words_that_are_only_english_stopwords() -> None:
    # `me` and `no` are stopwords of both; `how` only of English, so it is read here
    assert question_terms("como usar o how de uma receita") == ["usar", "how", "receita"]


def test_a_question_of_no_told_language_drops_both_lists() -> None:
    assert question_terms("ovo") == ["ovo"]
    # one stopword of each: a tie drops both lists
    assert question_terms("the ovo de") == ["ovo"]
    assert question_terms("hide the AI answer") == ["hide", "answer"]


def test_a_one_letter_word_never_votes_for_a_language() -> None:
    # `a` is an English stopword and a Portuguese article: it must not make this English
    assert language_of_words(words("a que horas abre a padaria")) == "pt"
    assert question_terms("a que horas abre a padaria") == ["horas", "abre", "padaria"]
