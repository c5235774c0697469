#!/usr/bin/env python3
"""Prints where it ran, its arguments, and the size of its stdin, one per line."""

import os
import sys

data = sys.stdin.buffer.read()
print(os.getcwd())
print(repr(sys.argv[1:]))
print(len(data))
