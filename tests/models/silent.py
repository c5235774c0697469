#!/usr/bin/env python3
"""A model that reads its prompt and prints nothing (only whitespace): an empty reply."""

import sys

sys.stdin.read()
sys.stdout.write("\n  \n")
