"""Regenerate ``corpus.txt``, the demo's default training text.

The corpus is written by this script, not collected: short sentences from a
small grammar about a workshop of clockmakers, deterministic for a seed, so
the file can be rebuilt byte for byte (``python make_corpus.py``).  It has
enough structure (agreement, recurring names, punctuation) that a tiny
character-level model visibly learns it in a minute.
"""

from __future__ import annotations

import random
from pathlib import Path

NAMES = ["Ada", "Bram", "Cleo", "Dara", "Emil", "Fenna", "Gus", "Hedda", "Ivo", "Juno"]
TOOLS = ["file", "lathe", "loupe", "spring", "gear", "hammer", "chisel", "pendulum", "dial", "key"]
PLACES = ["the workshop", "the attic", "the market", "the tower", "the garden", "the harbour"]
ADJ = ["small", "bright", "old", "patient", "careful", "quiet", "golden", "heavy", "tiny", "steady"]
VERBS = [("mends", "mended"), ("winds", "wound"), ("polishes", "polished"), ("tests", "tested"),
         ("carries", "carried"), ("measures", "measured"), ("builds", "built"), ("opens", "opened")]
TIMES = ["at dawn", "before noon", "after supper", "every morning", "at midnight", "on market day"]
THINGS = ["clock", "watch", "music box", "compass", "lantern", "tower bell"]


def article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def sentence(r: random.Random) -> str:
    n, n2 = r.sample(NAMES, 2)
    a, thing, tool = r.choice(ADJ), r.choice(THINGS), r.choice(TOOLS)
    (v, vp), place, when = r.choice(VERBS), r.choice(PLACES), r.choice(TIMES)
    forms = [
        f"{n} {v} the {a} {thing} in {place} {when}.",
        f"{when.capitalize()}, {n} {vp} {article(a)} {thing} with {article(tool)}.",
        f"\"Where is my {tool}?\" asked {n}. \"In {place},\" said {n2}.",
        f"{n} and {n2} {vp} the {thing} together, and it ticked again.",
        f"The {thing} in {place} was {a}, so {n} {vp} it {when}.",
        f"If the {tool} slips, the {thing} stops; {n} knows this and works slowly.",
        f"{n2} counted the gears: one, two, three, four, five. Then {n} {vp} the {thing}.",
    ]
    return r.choice(forms)


def main(seed: int = 7, n_sentences: int = 900) -> str:
    r = random.Random(seed)
    paragraphs = []
    for _ in range(n_sentences // 6):
        paragraphs.append(" ".join(sentence(r) for _ in range(6)))
    return "\n\n".join(paragraphs) + "\n"


if __name__ == "__main__":
    Path(__file__).with_name("corpus.txt").write_text(main(), encoding="utf-8")
