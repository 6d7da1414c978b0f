"""Pawn placement (project-defined): turns in seat order from the first player, one pawn at a time, each action
resolving when its pawn is placed; then the end of the round (retrieve, Asteroid check, reset)."""

from __future__ import annotations

import random
from typing import Any

from engine.marine.data import (
    ACTION_SPACES,
    ASTEROID_ID,
    CARD_NAMES,
    DOMINATION_MIN_PLAYERS,
    ELEMENTS,
    EVOLUTION_SPACES,
    PAWNS_PER_PLAYER,
    SLOTS,
    TERRAIN_INDEX,
    TERRAIN_MARKERS,
)
from engine.marine.state import DISPLAY, READY, MarineState
from engine.marine.step_registry import (
    Act,
    AskDominate,
    AskEvolutionTile,
    AskMigrate,
    AskPlace,
    AskSpeciate,
    AskStack,
    FinalScoring,
    Placement,
    PutPawn,
    Reset,
    ask,
    task,
)

ACTIONS = tuple(action for action, _count in ACTION_SPACES)


SPACES = {action: tuple(f"{action}_{k}" for k in range(1, count + 1)) for action, count in ACTION_SPACES}


def _open_spaces(n: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(action, its spaces open with n players), in placement-option order: Domination by DOMINATION_MIN_PLAYERS."""
    return tuple((action, tuple(space for k, space in enumerate(SPACES[action], 1)
                                if action != "domination" or DOMINATION_MIN_PLAYERS[k] <= n)) for action in ACTIONS)


OPEN_SPACES = {n: _open_spaces(n) for n in PAWNS_PER_PLAYER}
OPEN_BY_ACTION = {n: dict(spaces) for n, spaces in OPEN_SPACES.items()}

# Steps are immutable, so placement's (the engine's hottest loop) are made once and shared.
SEATS = range(max(PAWNS_PER_PLAYER))
PLACEMENTS = [[Placement(seat, idle) for idle in SEATS] for seat in SEATS]
ASK_PLACE = [AskPlace(seat) for seat in SEATS]
PAWN_STEPS = {(seat, space): (Act(seat, space), PutPawn(seat, space))
              for seat in SEATS for spaces in SPACES.values() for space in spaces}


def free_space(st: MarineState, action: str) -> str | None:
    """The first free space of an action (Domination spaces only where open for the player count)."""
    display = st.display
    for space in OPEN_BY_ACTION[st.n][action]:
        if space not in display:
            return space
    return None


def ready_specials(st: MarineState, seat: int) -> list[int]:
    return [e for e, sp in enumerate(st.special) if sp.controller == seat and sp.place == READY]


def dominated(st: MarineState, seat: int) -> list[int]:
    leaders = st.dominance()[1]
    return [e for e in range(len(ELEMENTS)) if leaders[e] == seat]


def place_options(st: MarineState, seat: int) -> list[Any]:
    """The free spaces seat may take: one option per action, one per Evolution space."""
    if st.pawns[seat] <= 0 and not ready_specials(st, seat):
        return []
    display = st.display
    options: list[Any] = []
    for action, spaces in OPEN_SPACES[st.n]:
        if action == "evolution":
            k = 0
            for space in spaces:
                k += 1
                if space not in display:
                    options.append(["evolution", k])
            continue
        for space in spaces:
            if space not in display:
                if action != "domination" or dominated(st, seat):
                    options.append([action])
                break
    return options


@task(Placement, "placement", "seat", "int")
def placement(st: MarineState, t: Placement) -> None:
    """Seat t.seat places a pawn if it can; the round's placement ends when every seat in a row could not."""
    seat, idle = t.seat, t.idle
    nxt = (seat + 1) % st.n
    options = place_options(st, seat)
    if options:
        st.place_cache = options  # ask_place, next on the stack, takes these rather than working them out again
        st.stack += (PLACEMENTS[nxt][0], ASK_PLACE[seat])
    elif idle + 1 >= st.n:
        st.stack.append(Reset())
    else:
        st.stack.append(PLACEMENTS[nxt][idle + 1])


def place_answer(st: MarineState, t: AskPlace, option: Any) -> None:
    seat = t.seat
    space = f"evolution_{option[1]}" if option[0] == "evolution" else free_space(st, option[0])
    assert space is not None
    st.stack += PAWN_STEPS[seat, space]


def cached_place_options(st: MarineState, t: AskPlace) -> list[Any]:
    options, st.place_cache = st.place_cache, None
    return options if options is not None else place_options(st, t.seat)


ask(AskPlace, "ask_place", "place", "Place a pawn on an action space.", (), cached_place_options, place_answer)


@task(PutPawn, "put_pawn", "seat", "space")
def put_pawn(st: MarineState, t: PutPawn) -> None:
    """Special pawns in front of the player go first, in element order, then action pawns ([ours:
    special_pawns_first]: a placed pawn has done its work, while one left in front of you goes to a rival's
    Domination at once; a rival may still take control of a placed one and collects it at the retrieve)."""
    seat, space = t.seat, t.space
    specials = ready_specials(st, seat)
    if specials:
        st.special[specials[0]].place = DISPLAY
        pawn = ELEMENTS[specials[0]]
    else:
        st.pawns[seat] -= 1
        pawn = "pawn"
    st.display[space] = (seat, pawn)
    st.event(event="placed", seat=seat, space=space, pawn=pawn)


@task(Act, "act", "seat", "space")
def act(st: MarineState, t: Act) -> None:
    seat, space = t.seat, t.space
    action, _, number = space.rpartition("_")
    if action == "speciation":
        st.stack.append(AskSpeciate(seat))
    elif action == "migration":
        st.stack.append(AskMigrate(seat, 0))
    elif action == "wanderlust":
        st.stack.append(AskStack(seat))
    elif action == "evolution":
        st.stack.append(AskEvolutionTile(seat, int(number)))
    else:
        st.stack.append(AskDominate(seat))


# -- the end of a round ---------------------------------------------------------------------------------------------

@task(Reset, "reset")
def reset(st: MarineState, t: Reset) -> None:
    """Retrieve the pawns; after the Asteroid was taken (or in round `max_rounds`) the game ends; otherwise
    discard slot 1 (option `reset_discard`), draw new terrain markers, pass the first player, start a round."""
    retrieve(st)
    if not st.asteroid_taken and st.options["reset_discard"] and st.slots[0] is not None:
        card = st.slots[0]
        st.discard.append(card)
        st.event(event="card_discarded", slot=1, card=CARD_NAMES[card])
        st.slide_and_refill(0)
        if card == ASTEROID_ID and st.names_the_discard():
            st.asteroid_discarded = True
            st.event(event="asteroid_discarded", slot=1)
        elif card == ASTEROID_ID:
            st.asteroid_taken = True
    limit = st.options["max_rounds"]
    if st.last_round() or (limit and st.round >= limit):
        st.stack.append(FinalScoring())
        return
    st.round += 1
    st.first = (st.first + 1) % st.n
    draw_markers(st)
    st.event(event="round", round=st.round, first_player=st.first)
    st.stack.append(Placement(st.first, 0))


def retrieve(st: MarineState) -> None:
    """Every pawn comes back; a special pawn on the display goes in front of its controller (the seed)."""
    st.display.clear()
    st.pawns = [PAWNS_PER_PLAYER[st.n]] * st.n
    for sp in st.special:
        if sp.place == DISPLAY:
            sp.place = READY


def draw_markers(st: MarineState) -> None:
    """5 of the 16 terrain markers for the Evolution spaces, sorted by rank: space 1 holds the best."""
    drawn = random.Random(f"{st.seed}:markers:{st.round}").sample(range(len(TERRAIN_MARKERS)), EVOLUTION_SPACES)
    st.markers = sorted(TERRAIN_INDEX[TERRAIN_MARKERS[i]] for i in drawn)


@task(FinalScoring, "final_scoring")
def final_scoring(st: MarineState, t: FinalScoring) -> None:
    """The end (project-defined): every tile is scored once as Evolution scores it; control markers score."""
    for h in st.tile_order:
        got = st.score(h, 2)
        if got:
            st.event(event="final_score", tile=list(h), vp=got)
    st.phase = "over"
    st.event(event="game_over", scores=[sum(st.score_parts(s).values()) for s in range(st.n)])


assert SLOTS == 5
