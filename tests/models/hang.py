#!/usr/bin/env python3
"""A model that never answers: it starts a child that sleeps too (so a test can check the
whole process group dies), writes the child's pid to the file named by its first argument
when one is given, and sleeps for ten minutes."""

import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as fh:
        fh.write(f"{child.pid}\n")
time.sleep(600)
