# The long runs. CI runs the short forms of the same tests through `python -m pytest`;
# these targets run them at nightly size. Activate the project's venv first.

PYTHON ?= python

.PHONY: test nightly stress fuzz properties bench scale sync-long mutate

test:
	$(PYTHON) -m pytest -q

# Stress (concurrency, crash trials, 60 kills of kb sync) and fuzz (Hypothesis) at nightly size.
nightly: stress fuzz properties

stress:
	KB_STRESS=nightly $(PYTHON) -m pytest -q -p no:cacheprovider tests/stress tests/sync/test_sync_crash.py

fuzz:
	KB_STRESS=nightly $(PYTHON) -m pytest -q -p no:cacheprovider tests/fuzz --hypothesis-profile=nightly

# Three clones writing, refusing and syncing through one bare remote for four minutes
# (tests/sync/test_three_clones.py; CI runs 20 s of it). Prints the counts it checked.
sync-long:
	KB_SYNC_LONG=1 $(PYTHON) -m pytest -q -s -p no:cacheprovider tests/sync/test_three_clones.py

# The costly properties (privacy on every surface, the merges, the verdict) at ten times
# their examples (tests/properties/strategies.py, PROPERTY_SCALE).
properties:
	KB_PROPERTY_SCALE=10 $(PYTHON) -m pytest -q -p no:cacheprovider tests/properties

bench:
	$(PYTHON) benchmarks/route.py --work /tmp/kbw

# Scale table (benchmarks/README.md, `scale.py`): fleets cached in /tmp/kbscale, ~1.7 GB at 100k.
scale:
	$(PYTHON) benchmarks/scale.py --sizes 1000,10000,100000 --work /tmp/kbscale \
		--json /tmp/kbscale/results.json

# Mutation testing of every decision module against its own tests (tests/mutation/mutate.py;
# docs/testing.md has the scores). CI runs the privacy and verdict modules; this runs all.
mutate:
	$(PYTHON) tests/mutation/mutate.py --work /tmp/kb-mutants --json /tmp/kb-mutants/scores.json
