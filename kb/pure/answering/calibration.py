"""How a fleet's own vocabulary calibrates the verdict's `nothing` line.

A question the fleet can answer is mostly made of words the fleet uses; a question it
cannot answer is made of everyday words, of which a large fleet knows many and a small one
few. So how much of a question the fleet knows separates the two only against the right
line, and that line moves with the fleet. Both sides of it are measured on the fleet
itself, never on a benchmark:

- on topic: how often a word of one of its notes' titles (a question the note answers,
  asked in its author's words) is known to another note of the same base;
- off topic: how much of an everyday question (`EVERYDAY`, below: written for kb, about
  cooking, travel, sport, history, pets, weather, never about software or any dev corpus)
  the fleet knows, per language.

Rules of this module:
- A word of a question is one `tokens.question_terms` keeps; a word of digits only (a
  year, a port, a version) says nothing about the subject and is never counted.
- Each rate is smoothed (Laplace: the on-topic rate by one known and one unknown title
  word, the off-topic mean by one more question half known), so a tiny fleet or a fleet
  with no titles never gives a rate of 0 or 1.
- The known-share line is where the two rates are equally likely to have produced a
  question (a binomial likelihood ratio of 1): a share of known words above it is more
  like the fleet's own questions, below it more like everyday ones. When the on-topic rate
  is no higher than the off-topic one, the fleet's vocabulary tells nothing and the line
  is 0 (no question is refused for its words alone).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from functools import cache, lru_cache

from attrs import frozen

from kb.pure.notes.tokens import Language, language_of_words, question_terms, words

# The everyday questions, in the two languages kb folds and stops words for. Written for
# kb; no dev corpus's question is among them or was rewritten into one.
_EVERYDAY_ENGLISH = (
    "what time does the bakery on the corner open on sundays",
    "how long should I boil an egg for a soft yolk",
    "what is the tallest mountain in africa",
    "who painted the ceiling of the sistine chapel",
    "how many days are there in a leap year",
    "what should I pack for a week at the beach",
    "how do I get red wine out of a white shirt",
    "when is the best season to plant tomatoes",
    "why is the sky blue during the day",
    "how far is the moon from the earth",
    "what is a good name for a golden retriever puppy",
    "how do I tie a tie for a wedding",
    "which vitamins are in oranges",
    "what is the population of brazil",
    "how do I fix a squeaky door hinge",
    "what is the difference between a crocodile and an alligator",
    "how long does it take to fly from london to new york",
    "who won the world cup in the year my father was born",
    "what is the recipe for a classic lemon cake",
    "how often should I water a cactus",
    "where can I buy cheap train tickets to paris",
    "what causes thunder and lightning",
    "how do I say thank you in japanese",
    "what is the boiling point of water on a mountain",
    "why do cats purr when they are happy",
    "how many bones are in the human body",
    "what is the plot of the novel about the whale",
    "how do I clean a cast iron frying pan",
    "what is the fastest animal on land",
    "how much sleep does a teenager need",
    "what is the best way to learn to swim as an adult",
    "who was the first person to walk on the moon",
    "how do I make my houseplants grow faster",
    "what is the meaning of a rainbow after the storm",
    "how do I ask my landlord to repair the heating",
    "what are the rules of chess for castling",
    "how long can cooked rice stay in the fridge",
    "what is the weather like in lisbon in october",
    "how do I calm down before a job interview",
    "which countries border switzerland",
    "how do bees make honey",
    "what should I feed a hamster",
    "how do I hang a heavy mirror on a brick wall",
    "what year did the second world war end",
    "how many calories are in a banana",
    "what is the best route for a road trip along the coast",
    "how do I change the battery of a wristwatch",
    "why does bread go stale",
    "how do I remove rust from a bicycle chain",
    "what is a healthy breakfast for a child",
    "how do I write a birthday card for my grandmother",
    "what is the height of the eiffel tower",
    "how do I keep mosquitoes away in the garden",
    "which planet has the most moons",
    "how do I stop my dog from barking at night",
    "what is the difference between weather and climate",
    "how do I sew a button back on a coat",
    "where do penguins live in the wild",
    "what is the best age to start piano lessons",
    "how do I make a cup of tea without a kettle",
    "why do leaves change colour in autumn",
    "how many litres of water should I drink a day",
    "what is the story of the trojan horse",
    "how do I get a stain off a leather sofa",
    "what time is sunset in summer in the north",
    "how do I choose a ripe avocado at the market",
    "which wine goes well with grilled fish",
    "how much does it cost to rent a flat in the city centre",
    "how do I train for my first long hike in the mountains",
    "what is the oldest university in europe",
    "how do I fold a fitted sheet neatly",
    "what do owls eat at night",
    "how do I teach a child to ride a bicycle",
    "what is the largest ocean on the planet",
    "how long is a marathon in miles",
    "who invented the telephone",
    "how do I grow basil on a windowsill",
    "what are the symptoms of a common cold",
    "how do I plan a surprise party for a friend",
    "which flowers bloom in early spring",
    "how do I polish old silver spoons",
    "what is the speed of sound in air",
    "how many strings does a violin have",
    "what is the best way to store fresh strawberries",
    "how do I jump start a car with a flat battery",
    "who wrote the famous play about two young lovers in verona",
    "what is the deepest lake in the world",
    "how do I knit a simple scarf for winter",
    "why do we yawn when we are tired",
    "how do I apologise to a neighbour for the noise",
    "what is the national dish of spain",
    "how much should I tip a waiter in a restaurant",
    "which birds migrate south for the winter",
    "how do I make pancakes fluffy",
    "what are the colours of the french flag",
    "how do I get rid of hiccups quickly",
    "what is the longest river in south america",
)
_EVERYDAY_PORTUGUESE = (
    "a que horas abre a padaria no domingo",
    "quanto tempo devo cozinhar um ovo para a gema ficar mole",
    "qual e a montanha mais alta do brasil",
    "quem pintou o quadro da mulher sorrindo",
    "quantos dias tem um ano bissexto",
    "o que levar para uma semana na praia",
    "como tirar mancha de vinho da camisa branca",
    "quando e a melhor epoca para plantar tomate",
    "por que o ceu e azul durante o dia",
    "qual a distancia da terra ate a lua",
    "qual um bom nome para um cachorro filhote",
    "como dar no de gravata para um casamento",
    "quais vitaminas tem na laranja",
    "qual a populacao de portugal",
    "como consertar uma porta que range",
    "qual a diferenca entre jacare e crocodilo",
    "quanto tempo dura o voo de lisboa para salvador",
    "quem ganhou a copa do mundo de setenta",
    "qual a receita de um bolo de cenoura com chocolate",
    "com que frequencia devo regar um cacto",
    "onde comprar passagem de onibus barata para o rio",
    "o que causa trovao e relampago",
    "como se diz obrigado em japones",
    "por que os gatos ronronam",
    "quantos ossos tem o corpo humano",
    "como limpar uma frigideira de ferro",
    "qual o animal mais rapido da terra",
    "quantas horas de sono um adolescente precisa",
    "qual a melhor forma de aprender a nadar adulto",
    "quem foi o primeiro homem a pisar na lua",
    "como fazer minhas plantas crescerem mais rapido",
    "como pedir ao dono do apartamento para consertar o chuveiro",
    "quais sao as regras do xadrez para o roque",
    "quanto tempo o arroz cozido dura na geladeira",
    "como esta o clima em recife em outubro",
    "como ficar calmo antes de uma entrevista de emprego",
    "quais paises fazem fronteira com a bolivia",
    "como as abelhas fazem mel",
    "o que dar de comer para um hamster",
    "em que ano terminou a segunda guerra mundial",
    "quantas calorias tem uma banana",
    "como trocar a bateria de um relogio de pulso",
    "por que o pao fica duro",
    "como tirar ferrugem da corrente da bicicleta",
    "qual um cafe da manha saudavel para criancas",
    "como escrever um cartao de aniversario para a avo",
    "como espantar pernilongo do quintal",
    "qual planeta tem mais luas",
    "como fazer o cachorro parar de latir a noite",
    "qual a diferenca entre tempo e clima",
    "como pregar um botao no casaco",
    "onde vivem os pinguins",
    "com que idade comecar aulas de piano",
    "por que as folhas mudam de cor no outono",
    "quantos litros de agua devo beber por dia",
    "como escolher um abacate maduro na feira",
    "qual vinho combina com peixe grelhado",
    "quanto custa alugar um apartamento no centro",
    "qual a universidade mais antiga do brasil",
    "como dobrar um lencol de elastico",
    "como ensinar uma crianca a andar de bicicleta",
    "qual o maior oceano do planeta",
    "quem inventou o telefone",
    "como plantar manjericao na janela",
    "quais os sintomas de um resfriado",
    "como organizar uma festa surpresa para um amigo",
    "como fazer panqueca fofinha",
    "quais as cores da bandeira de portugal",
    "como parar o solucao rapido",
    "qual o rio mais longo do mundo",
)

EVERYDAY: dict[Language, tuple[str, ...]] = {
    "en": _EVERYDAY_ENGLISH,
    "pt": _EVERYDAY_PORTUGUESE,
}

# How many notes' titles a base samples for the on-topic rate (every k-th by path): the
# rate of 7,658 title words over til-dev's 1,871 notes and of a 400-note sample of them
# differ by under 0.01, and a 100,000-note base need not read every title.
TITLE_SAMPLE = 400


def counted_words(text: str) -> list[str]:
    """The words of `text` that count: `question_terms` without words of digits only."""
    return [w for w in question_terms(text) if not w.isdigit()]


@cache
def everyday_words() -> tuple[str, ...]:
    """Every distinct counted word of the everyday questions, sorted: what each base
    looks up in its vocabulary once per change of its index."""
    return tuple(sorted({w for qs in EVERYDAY.values() for q in qs for w in counted_words(q)}))


@cache
def _everyday_terms(language: Language) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(counted_words(q)) for q in EVERYDAY[language])


def language_of(question: str) -> Language | None:
    """The language of a question by its stopwords (English or Portuguese), None when it
    has none of either or as many of both (`tokens.language_of_words`: the vote that also
    chooses which stopwords the question drops)."""
    return language_of_words(words(question))


@frozen
class Calibration:
    """What one base (or a fleet: `plus`) knows of the two kinds of question."""

    title_known: int  # sampled title words another note of the base also holds
    title_words: int  # sampled title words
    everyday_known: frozenset[str]  # the everyday words the vocabulary holds

    def plus(self, other: Calibration) -> Calibration:
        return Calibration(
            self.title_known + other.title_known,
            self.title_words + other.title_words,
            self.everyday_known | other.everyday_known,
        )

    def on_topic(self) -> float:
        return (self.title_known + 1) / (self.title_words + 2)

    def off_topic(self, language: Language | None) -> float:
        """The mean share of an everyday question the vocabulary knows, in `language`
        (both languages' questions when None), smoothed as if one more question were half
        known."""
        return _off_topic(self.everyday_known, language)

    def known_line(self, language: Language | None) -> float:
        return known_share_line(self.on_topic(), self.off_topic(language))


NO_CALIBRATION = Calibration(0, 0, frozenset())


# Remembered per (known words, language): a fleet's calibration is fixed until its index
# changes, and the 700-odd membership tests were 0.1 ms of every answer a daemon gives. A
# frozenset keeps its hash, so a hit costs a lookup. A few fleets, three languages each.
@lru_cache(maxsize=64)
def _off_topic(everyday_known: frozenset[str], language: Language | None) -> float:
    languages: tuple[Language, ...] = (language,) if language else ("en", "pt")
    shares = [
        sum(w in everyday_known for w in terms) / len(terms)
        for lang in languages
        for terms in _everyday_terms(lang)
        if terms
    ]
    return (sum(shares) + 0.5) / (len(shares) + 1)


def fleet_calibration(parts: Iterable[Calibration]) -> Calibration:
    total = NO_CALIBRATION
    for part in parts:
        total = total.plus(part)
    return total


def known_share_line(on_topic: float, off_topic: float) -> float:
    """The share of known words at which a question is as likely drawn at the on-topic
    rate as at the off-topic one (each word known independently): 0 when the rates do not
    separate."""
    if not 0.0 < off_topic < on_topic < 1.0:
        return 0.0
    against = math.log((1.0 - off_topic) / (1.0 - on_topic))
    return against / (math.log(on_topic / off_topic) + against)


def title_sample(paths: Sequence[str], limit: int = TITLE_SAMPLE) -> list[str]:
    """Every k-th of `paths` (sorted), at most `limit` of them: a sample the same for the
    same files, spread over the whole base."""
    ordered = sorted(paths)
    if len(ordered) <= limit:
        return ordered
    step = len(ordered) / limit
    return [ordered[int(i * step)] for i in range(limit)]


def title_words_known(title: str, chunks: int, chunk_df: dict[str, int]) -> tuple[int, int]:
    """(known, words) for one note's title. Every chunk of a note carries its title in its
    heading path, so a title word is in at least `chunks` chunks; in more, and another note
    holds it too."""
    found = counted_words(title)
    return sum(chunk_df.get(w, 0) > chunks for w in found), len(found)


def known_share(asked: Collection[str], known: Collection[str]) -> float:
    """The share of a question's counted words the fleet knows (0 when it has none)."""
    counted = [w for w in asked if not w.isdigit()]
    if not counted:
        return 0.0
    return sum(w in known for w in counted) / len(counted)
