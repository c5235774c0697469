"""Properties of the handoff baton (kb.pure.sessions.handoff):

- the machine accepts exactly the sequences a reference model accepts: for any generated
  sequence of save / claim / complete, every step is accepted or refused as the model says,
  with the model's refusal line, the model's status and claimer, and a refused step
  changes nothing;
- the transition table and the refusals together cover every (state, action) pair;
- a record written reads back as itself (render, then parse), whatever its text;
- the JSON has the documented keys in the documented order, `claimed_by` only when set;
- the boot briefing never exceeds its byte budget (plus the truncation note) and is whole
  UTF-8;
- no secret given to `save` or `claim` reaches the record;
- `kb boot`'s own hot-path readers agree with this side on both file formats.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.sessions import handoff as ho
from kb.pure.sessions.session import Refused, Routed, flatten, parse_events

PROPS = settings(max_examples=300, deadline=None)
TODAY = "2026-02-03"


# -- the reference model: written independently of the table -------------------------------


class Model:
    """The spec's words, as plain code: pending -> claimed (claim names the claimer);
    pending or claimed -> completed; save always starts a fresh pending baton."""

    def __init__(self) -> None:
        self.status: str | None = None
        self.claimer: str | None = None

    def apply(self, action: str, agent: str) -> str | None:
        """The refusal line, or None when the step is accepted."""
        if action == "save":
            self.status, self.claimer = "pending", None
            return None
        if self.status is None:
            return "no handoff record found"
        if self.status == "completed":
            return "handoff is already completed"
        if action == "claim":
            if self.status == "claimed":
                return f"handoff already claimed by {self.claimer or 'another agent'}"
            self.status, self.claimer = "claimed", agent
            return None
        self.status = "completed"
        return None


AGENTS = st.sampled_from(["ada", "bruno", "clara", "a b", "x\ty"])
ACTIONS = st.lists(st.tuples(st.sampled_from(["save", "claim", "complete"]), AGENTS), max_size=12)


def move_for(action: str, agent: str, n: int) -> ho.Move:
    if action == "save":
        return ho.Save(ho.Record(session="s", agent=agent, task=f"task {n}", updated_at=TODAY))
    if action == "claim":
        return ho.Claim(agent, TODAY)
    return ho.Complete(TODAY)


@PROPS
@given(ACTIONS)
def test_the_machine_matches_the_reference_model(actions: list[tuple[str, str]]) -> None:
    model = Model()
    record: ho.Record | None = None
    for n, (action, agent) in enumerate(actions):
        expected = model.apply(action, flatten(agent))
        stepped = ho.step(record, move_for(action, agent, n))
        if expected is None:
            record = stepped.unwrap()
            assert record.status.value == model.status
            assert record.claimed_by == model.claimer
            if action == "save":
                assert record.task == f"task {n}"
        else:
            assert stepped.failure() == expected
            # a refusal is a value, never a changed record: `record` stays what it was
        if record is not None:
            assert ho.is_legal(record.status, ho.Action.SAVE)


def test_every_pair_is_either_a_transition_or_a_refusal() -> None:
    states: list[ho.Status | None] = [None, *ho.Status]
    for state in states:
        record = (
            None
            if state is None
            else ho.Record(session="s", agent="a", task="t", status=state, claimed_by="c")
        )
        for action in ho.Action:
            model = Model()
            model.status, model.claimer = (None, None) if state is None else (state.value, "c")
            expected = model.apply(action.value, "z")
            assert ho.is_legal(state, action) == (expected is None), (state, action)
            if expected is not None:
                assert ho.refusal(record, action) == expected


# -- the record file ---------------------------------------------------------------------------

TEXT = st.text(max_size=60)
ITEMS = st.lists(TEXT, max_size=4).map(tuple)


@st.composite
def records(draw: st.DrawFn) -> ho.Record:
    return ho.clean(
        ho.Record(
            session=draw(st.text(min_size=1, max_size=30).filter(lambda s: flatten(s) != "")),
            agent=draw(TEXT),
            task=draw(TEXT),
            status=draw(st.sampled_from(list(ho.Status))),
            claimed_by=draw(st.none() | TEXT),
            decisions=draw(ITEMS),
            blockers=draw(ITEMS),
            next_steps=draw(ITEMS),
            references=draw(ITEMS),
            updated_at=draw(st.sampled_from([TODAY, "", "2026-12-31"])),
        )
    )


@PROPS
@given(records())
def test_a_record_reads_back_as_itself(record: ho.Record) -> None:
    assert ho.parse(ho.render(record)) == record
    assert ho.clean(record) == record, "cleaning is idempotent"


@PROPS
@given(records())
def test_json_keys_and_order(record: ho.Record) -> None:
    keys = list(ho.as_json(record))
    expected = ["session", "agent", "task", "status"]
    if record.claimed_by:
        expected.append("claimed_by")
    expected += ["decisions", "blockers", "next_steps", "references", "updated_at"]
    assert keys == expected


@PROPS
@given(records(), st.integers(min_value=0, max_value=400))
def test_the_briefing_keeps_its_budget(record: ho.Record, budget: int) -> None:
    text = ho.briefing(record, budget)
    data = text.encode("utf-8")
    assert len(data) <= budget + len(ho.TRUNCATED.encode("utf-8"))
    assert data.decode("utf-8") == text
    if len(data) > budget:
        assert text.endswith(ho.TRUNCATED)
    full = ho.briefing(record, 10**9)
    assert full.startswith(f"VESTA: CONTINUITY (session {record.session}, status: ")


SECRET = "sk-proj-Zq8Lm2Xv9Tn4Rb7Kc1Wd"


@PROPS
@given(records(), st.sampled_from(["agent", "task", "decisions", "references"]))
def test_no_secret_reaches_the_record(record: ho.Record, where: str) -> None:
    value: Any = f"see {SECRET} now"
    if where in ("decisions", "references"):
        value = (f"token={SECRET}",)
    saved = ho.step(None, ho.Save(attrs.evolve(record, **{where: value}))).unwrap()
    claimed = ho.step(saved, ho.Claim(f"agent {SECRET}", TODAY)).unwrap()
    assert SECRET not in ho.render(claimed)


# -- agreement with kb boot's hot-path readers -------------------------------------------------
# `kb boot` reads handoff records and writes session events through its own small modules
# (kb.pure.sessions.continuity, kb.pure.sessions.sessionlog), so that a hook paying for every prompt
# does not import this machinery. Two codecs for one format can drift; these hold them together, and
# skip if the boot side stops having its own.


@PROPS
@given(records(), st.integers(min_value=0, max_value=3000))
def test_boot_reads_the_record_this_side_writes(record: ho.Record, budget: int) -> None:
    from kb.pure.sessions import continuity

    theirs = continuity.parse_handoff(ho.render(record))
    assert theirs is not None
    assert (
        theirs.session,
        theirs.agent,
        theirs.status,
        theirs.claimed_by,
        theirs.updated_at,
        theirs.task,
        theirs.decisions,
        theirs.blockers,
        theirs.next_steps,
        theirs.references,
    ) == (
        record.session,
        record.agent,
        record.status.value,
        record.claimed_by,
        record.updated_at,
        record.task,
        record.decisions,
        record.blockers,
        record.next_steps,
        record.references,
    )
    assert continuity.briefing(theirs, budget) == ho.briefing(record, budget)


WORD = st.text(max_size=20).filter(lambda w: "," not in w and flatten(w) != "")


@PROPS
@given(WORD, st.lists(WORD, max_size=4), WORD)
def test_capture_reads_the_events_boot_writes(question: str, words: list[str], agent: str) -> None:
    from kb.pure.sessions import sessionlog

    text = sessionlog.refused_line(question, words) + sessionlog.routed_line(agent)
    assert parse_events(text) == (
        Refused(flatten(question), tuple(flatten(w) for w in words)),
        Routed(flatten(agent)),
    )
