# The long runs. CI runs the short forms of the same tests through `python -m pytest`;
# these targets run them at nightly size. Activate the project's venv first.

PYTHON ?= python

.PHONY: test nightly stress fuzz bench scale sync-long

test:
	$(PYTHON) -m pytest -q

# Stress (concurrency, crash trials, 60 kills of kb sync) and fuzz (Hypothesis) at nightly size.
nightly: stress fuzz

stress:
	KB_STRESS=nightly $(PYTHON) -m pytest -q -p no:cacheprovider tests/stress tests/sync/test_sync_crash.py

fuzz:
	KB_STRESS=nightly $(PYTHON) -m pytest -q -p no:cacheprovider tests/fuzz --hypothesis-profile=nightly

# Three clones writing, refusing and syncing through one bare remote for four minutes
# (tests/sync/test_three_clones.py; CI runs 20 s of it). Prints the counts it checked.
sync-long:
	KB_SYNC_LONG=1 $(PYTHON) -m pytest -q -s -p no:cacheprovider tests/sync/test_three_clones.py

bench:
	$(PYTHON) benchmarks/route.py --work /tmp/kbw

# Scale table (benchmarks/README.md, `scale.py`): fleets cached in /tmp/kbscale, ~1.7 GB at 100k.
scale:
	$(PYTHON) benchmarks/scale.py --sizes 1000,10000,100000 --work /tmp/kbscale \
		--json /tmp/kbscale/results.json
