"""Hostile: spins forever at its first decision. Contained by the clock: timeout fault, then killed."""
import ludus


def act(view, decision):
    while True:
        pass


ludus.run(act)
