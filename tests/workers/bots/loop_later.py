"""Hostile: plays 5 decisions, then spins forever. Contained by the clock: timeout fault mid-game, then killed."""
import ludus

played = 0


def act(view, decision):
    global played
    played += 1
    print("decision", played)
    while played > 5:
        pass
    return 0


ludus.run(act)
