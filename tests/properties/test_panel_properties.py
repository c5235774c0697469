"""The objection round's ledger (kb.pure.roles.panel) against a small reference model: generated
sequences of opens, answers and resolutions are accepted exactly when the model says they
are legal, the ledger agrees with the model after every step (through a write and a read of
the file, as the verb does it), a refusal changes nothing, and no round ever reads closed
while an objection is unaccounted for."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result

from kb.pure.roles import panel as pn
from kb.shell.cli.inputs import PANEL_MAX_REVIEWERS

AGENTS = ("ada", "bruno", "clara", "dora", "eli")
ARTIFACTS = ("draft.md", "./draft.md", "site\\index.html", "site/index.html")
TODAY = "2026-11-20"

# Objection texts labelled by whether they name a mechanism, so the model knows which
# blocking objections stand without calling kb.pure.roles.panel.validate.
TEXTS = (
    ("the retry loop is unbounded when the disk is full", True),
    ("this claim about the restore window is false", True),
    ("I don't like the tone because it violates rule W03", True),
    ("the second paragraph could be friendlier", False),
    ("I don't like the tone of this at all", False),
    ("meh", False),
    ("a\ttab and a\nnewline would\rforge rows", False),
)


# -- the reference model ----------------------------------------------------------------------


@dataclass
class Obj:
    reviewer: str
    blocking: bool
    state: str = "objection"


@dataclass
class ModelRound:
    owner: str
    seats: dict[str, str] = field(default_factory=dict)  # reviewer -> seat state
    objections: list[Obj] = field(default_factory=list)

    def closed(self) -> bool:
        return (
            all(o.state != "objection" for o in self.objections)
            and all(o.state in ("taken", "escalated") for o in self.objections if o.blocking)
            and all(s != "asked" for s in self.seats.values())
        )


def key(artifact: str) -> str:
    k = artifact.strip().replace("\\", "/")
    return k[2:] if k.startswith("./") else k


@dataclass(frozen=True)
class Open:
    artifact: str
    owner: str
    reviewers: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    artifact: str
    reviewer: str
    kind: str  # objection | nothing | not-returned
    text: int  # index into TEXTS
    blocking: bool


@dataclass(frozen=True)
class Resolve:
    artifact: str
    n: int
    outcome: str
    why: str
    reviewer: str | None


Action = Open | Answer | Resolve


def model_step(rounds: dict[str, ModelRound], action: Action) -> bool:
    """Apply `action` to the model; False (and no change) when it is illegal."""
    k = key(action.artifact)
    rnd = rounds.get(k)
    if isinstance(action, Open):
        names = list(dict.fromkeys(action.reviewers))
        if not names or action.owner in names or len(names) > 3:
            return False
        if rnd is not None and rnd.owner != action.owner:
            return False
        seated = rnd.seats if rnd is not None else {}
        new = [n for n in names if n not in seated]
        if len(seated) + len(new) > 3:
            return False
        rnd = rounds.setdefault(k, ModelRound(action.owner))
        for n in new:
            rnd.seats[n] = "asked"
        return True
    if isinstance(action, Answer):
        if rnd is None or action.reviewer not in rnd.seats:
            return False
        seat = rnd.seats[action.reviewer]
        if action.kind != "objection":
            if seat != "asked":
                return False
            rnd.seats[action.reviewer] = action.kind
            return True
        if seat not in ("asked", "objection"):
            return False
        grounded = TEXTS[action.text][1]
        mine = [o for o in rnd.objections if o.reviewer == action.reviewer]
        if action.blocking and any(o.blocking for o in mine):
            return False
        rnd.seats[action.reviewer] = "objection"
        rnd.objections.append(Obj(action.reviewer, action.blocking and grounded))
        return True
    if rnd is None or not 1 <= action.n <= len(rnd.objections):
        return False
    obj = rnd.objections[action.n - 1]
    if action.reviewer is not None and obj.reviewer != action.reviewer:
        return False
    if obj.state != "objection":
        return False
    if action.outcome == "refused" and (obj.blocking or not action.why.strip()):
        return False
    if action.outcome == "escalated" and not obj.blocking:
        return False
    obj.state = action.outcome
    return True


# -- the real ledger, through its file ---------------------------------------------------------


def real_step(rows: tuple[pn.Row, ...], action: Action) -> tuple[pn.Row, ...] | None:
    moved: Result[pn.Seated, pn.Refusal] | Result[pn.Recorded, pn.Refusal]
    moved_too: Result[pn.Resolved, pn.Refusal]
    if isinstance(action, Open):
        moved = pn.seat(rows, action.artifact, action.owner, action.reviewers, TODAY)
    elif isinstance(action, Answer):
        answer: pn.Answer
        if action.kind == "objection":
            answer = pn.Objection(TEXTS[action.text][0], action.blocking)
        elif action.kind == "nothing":
            answer = pn.FoundNothing()
        else:
            answer = pn.NotReturned("went ahead")
        moved = pn.record(rows, action.artifact, action.reviewer, answer, TODAY)
    else:
        outcome = next(o for o in pn.OUTCOMES if o == action.outcome)
        moved_too = pn.resolve(
            rows, action.artifact, action.n, outcome, action.why, action.reviewer, TODAY
        )
        if isinstance(moved_too, Failure):
            return None
        return moved_too.unwrap().rows
    if isinstance(moved, Failure):
        return None
    rows_after: tuple[pn.Row, ...] = moved.unwrap().rows
    return rows_after


agents = st.sampled_from(AGENTS)
artifacts = st.sampled_from(ARTIFACTS)
actions: st.SearchStrategy[Action] = st.one_of(
    st.builds(Open, artifacts, agents, st.lists(agents, min_size=0, max_size=4).map(tuple)),
    st.builds(
        Answer,
        artifacts,
        agents,
        st.sampled_from(("objection", "objection", "nothing", "not-returned")),
        st.integers(0, len(TEXTS) - 1),
        st.booleans(),
    ),
    st.builds(
        Resolve,
        artifacts,
        st.integers(0, 6),
        st.sampled_from(pn.OUTCOMES),
        st.sampled_from(("", "  ", "because the owner says so")),
        st.one_of(st.none(), agents),
    ),
)


def _agrees(rows: tuple[pn.Row, ...], model: dict[str, ModelRound]) -> None:
    assert set(pn.artifacts(rows)) == set(model)
    for k, m in model.items():
        rnd = pn.round_of(rows, k)
        assert rnd is not None and rnd.owner == m.owner
        assert {s.reviewer: s.state for s in rnd.seats} == m.seats
        assert [(o.n, o.row.reviewer, o.row.blocking, o.row.state) for o in rnd.objections] == [
            (i, o.reviewer, o.blocking, o.state) for i, o in enumerate(m.objections, start=1)
        ]
        assert rnd.closed == m.closed()
        if rnd.closed:  # the invariant the whole ledger exists for
            assert not rnd.unaccounted and not rnd.blocking_open and not rnd.silent


def likely(model: dict[str, ModelRound]) -> st.SearchStrategy[Action]:
    """Actions aimed at the rounds that exist (seated reviewers, numbers in range), so that
    long legal runs (and closed rounds) are common rather than lucky."""
    if not model:
        return actions
    rounds = st.sampled_from(sorted(model))
    seated = rounds.flatmap(
        lambda k: st.tuples(st.just(k), st.sampled_from(sorted(model[k].seats)))
    )
    numbered = [k for k in sorted(model) if model[k].objections]
    aimed: list[st.SearchStrategy[Action]] = [
        st.builds(
            Answer,
            seated.map(lambda p: p[0]),
            seated.map(lambda p: p[1]),
            st.sampled_from(("objection", "objection", "nothing", "not-returned")),
            st.integers(0, len(TEXTS) - 1),
            st.booleans(),
        ),
        seated.flatmap(
            lambda p: st.builds(
                Answer,
                st.just(p[0]),
                st.just(p[1]),
                st.sampled_from(("objection", "nothing", "not-returned")),
                st.integers(0, len(TEXTS) - 1),
                st.booleans(),
            )
        ),
    ]
    if numbered:
        aimed.append(
            st.sampled_from(numbered).flatmap(
                lambda k: st.builds(
                    Resolve,
                    st.just(k),
                    st.integers(1, len(model[k].objections)),
                    st.sampled_from(pn.OUTCOMES),
                    st.sampled_from(("", "because the owner says so")),
                    st.one_of(st.none(), st.sampled_from(sorted(model[k].seats))),
                )
            )
        )
    pending = [
        (k, i, o.blocking)
        for k in sorted(model)
        for i, o in enumerate(model[k].objections, start=1)
        if o.state == "objection"
    ]
    if pending:
        # Resolutions are what closes a round: draw them often, with a reason, so that the
        # one illegal outcome left (refusing a blocking objection) is tried as often as the
        # legal ones.
        aimed.append(
            st.sampled_from(pending).flatmap(
                lambda p: st.builds(
                    Resolve,
                    st.just(p[0]),
                    st.just(p[1]),
                    st.sampled_from(pn.OUTCOMES),
                    st.just("because the owner says so"),
                    st.none(),
                )
            )
        )
    return st.one_of(actions, *aimed)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_ledger_accepts_exactly_the_legal_sequences(data: st.DataObject) -> None:
    rows: tuple[pn.Row, ...] = ()
    model: dict[str, ModelRound] = {}
    for _ in range(data.draw(st.integers(0, 30), label="steps")):
        action = data.draw(likely(model), label="action")
        legal = model_step(model, action)
        after = real_step(rows, action)
        assert (after is not None) == legal, action
        if after is not None:
            # Every change goes through the file, as the verb writes and reads it back.
            text = pn.render_ledger(after)
            rows = pn.parse_ledger(text)
            assert pn.render_ledger(rows) == text
        _agrees(rows, model)


@settings(max_examples=200, deadline=None)
@given(st.lists(actions, max_size=25), actions)
def test_a_refusal_changes_nothing_and_numbers_never_move(
    sequence: list[Action], last: Action
) -> None:
    rows: tuple[pn.Row, ...] = ()
    for action in sequence:
        rows = real_step(rows, action) or rows
    after = real_step(rows, last)
    if after is None:
        return
    # Accepted: every row that was there is still there, at the same place, with the same
    # artifact, reviewer, seq and text; only states, reasons and dates may change.
    assert len(after) >= len(rows)
    for old, new in zip(rows, after, strict=False):
        assert (old.artifact, old.reviewer, old.seq, old.text, old.blocking) == (
            new.artifact,
            new.reviewer,
            new.seq,
            new.text,
            new.blocking,
        )


@given(st.text(max_size=80), st.text(max_size=40))
def test_any_text_survives_the_file_as_one_flattened_field(text: str, why: str) -> None:
    rows = (
        pn.Row(
            "a.md",
            "ada",
            "bruno",
            1,
            "refused",
            TODAY,
            TODAY,
            False,
            pn.flatten(text),
            pn.flatten(why),
        ),
    )
    back = pn.parse_ledger(pn.render_ledger(rows))
    assert back == rows


@given(st.text(max_size=120))
def test_a_named_mechanism_may_block_and_a_short_text_never_does(text: str) -> None:
    verdict = pn.validate(text)
    if len(text.strip().encode("utf-8")) < pn.MIN_OBJECTION_BYTES:
        assert verdict is not None
    lower = text.lower()
    if verdict is None:
        assert any(m in lower for m in pn.MECHANISMS)


def test_the_parse_time_cap_is_the_ledger_cap() -> None:
    assert PANEL_MAX_REVIEWERS == pn.MAX_REVIEWERS == 3


def test_an_artifact_is_one_round_however_it_is_typed() -> None:
    seated = pn.seat((), "./site\\index.html", "Ada", ("bruno",), TODAY)
    rows = seated.unwrap().rows
    again = pn.seat(rows, "site/index.html", "ada", ("BRUNO", "clara"), TODAY).unwrap()
    assert again.added == ("clara",) and again.already == ("bruno",)
    assert pn.artifacts(again.rows) == ("site/index.html",)


def test_the_constitutional_rubric_on_its_own_examples() -> None:
    assert pn.validate("too short") == (
        "objection is too brief to state a concrete mechanism or invariant"
    )
    assert pn.validate("honestly this feels wrong to me") == (
        "objection 'honestly this feels wrong to me' is purely subjective; constitutional "
        "critique requires stating a concrete mechanism, failure mode, or invariant"
    )
    assert pn.validate("feels wrong because the retry loop is unbounded") is None
    assert pn.validate("the cache leaks one handle per request") is None
    assert pn.validate("the heading could be shorter") == (
        "objection 'the heading could be shorter' is advisory; blocking objections must be "
        "constitutional"
    )
