#!/usr/bin/env python3
"""A deterministic promoter for `kb misses --apply`: prints the reply its first argument names.

good       a line that fixes "remolho noturno", the same alias again, and one the question
           does not hold
costly     a line that fixes "tempo de remolho" and costs the gold set a routed question
sides      lines refused before measuring (an empty side, both sides alike, an equals
           sign); for "cafe com levain", which hits today, a line with nothing to fix
malformed  prose with no tab-separated line
none       NONE
"""

import sys

prompt = sys.stdin.read()
REPLIES = {
    "good": "bruno\tremolho\tsoak beans\nbruno\tREMOLHO\tfeijao\nada\tk8s\tkubernetes\n",
    "costly": "bruno\ttempo\tvisto passaporte visa passport entry requirements\n",
    "sides": "bruno\t\tbeans\nbruno\tremolho\tREMOLHO\nbruno\tremolho=x\tbeans\n",
    "malformed": "I would suggest mapping remolho to soak beans.\nbruno remolho beans\n",
    "none": "NONE\n",
}
if sys.argv[1] == "sides" and "THE QUESTION: cafe com levain" in prompt:
    sys.stdout.write("bruno\tcafe\tcoffee\n")  # the question does not miss today
else:
    sys.stdout.write(REPLIES[sys.argv[1]])
