"""What both games' determinizations share: the checks of their inputs and the one error they raise
(docs/bots.md, "Search bots")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from engine.core import check_seed

S = TypeVar("S")
CONTEXT_KEYS = {"evolution": ("options", "rules_version", "stack", "passes", "acted", "negated", "next_species_id"),
                "marine": ("options", "rules_version", "stack")}


def determinize_with(build: Callable[[], S], game: str, seat: int, view: Any, history: Any, seed: int,
                     context: Any) -> S:
    """build() once the inputs are checked; ValueError naming what does not fit (a missing or mistyped key of the
    view or the context included), InvalidOptions for a bad seed."""
    check_seed(seed)
    check_inputs(game, seat, view, history, context)
    try:
        return build()
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"the {game} view or context is not one the engine gives: {exc!r}") from None


def check_inputs(game: str, seat: int, view: Any, history: Any, context: Any) -> None:
    """ValueError unless view is this seat's view of the game at its own decision and context is the decision's."""
    if not isinstance(view, Mapping) or view.get("game") != game:
        raise ValueError(f"determinize needs a {game} view (State.view(seat)), got "
                         f"{view.get('game') if isinstance(view, Mapping) else type(view).__name__!r}")
    if isinstance(seat, bool) or view.get("you") != seat:
        raise ValueError(f"the view is seat {view.get('you')!r}'s, not seat {seat!r}'s")
    decision = view.get("decision")
    if not isinstance(decision, Mapping) or decision.get("seat") != seat or "options" not in decision:
        raise ValueError(f"determinize needs a view at a decision of seat {seat}; this one is at "
                         f"{'none' if not isinstance(decision, Mapping) else 'seat ' + repr(decision.get('seat'))}'s")
    if not isinstance(history, Sequence) or isinstance(history, (str, bytes)):
        raise ValueError(f"history must be a list of events, got {type(history).__name__}")
    if not isinstance(context, Mapping) or context.get("game") != game:
        raise ValueError(f"determinize needs the decision's context (State.seat_context(seat), sent with the "
                         f"decision), got {context!r:.80}")
    missing = [k for k in CONTEXT_KEYS[game] if k not in context]
    if missing or not isinstance(context["stack"], list) or not isinstance(context["options"], Mapping):
        raise ValueError(f"the {game} context lacks {', '.join(missing) or 'a list stack and an options object'}")
