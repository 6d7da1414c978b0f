"""The Evolution game: metadata, options (every ruling with a reasonable other reading is an option) and setup."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import JSON, Game, InvalidOptions, OptionSpec
from engine.evolution import attacks, card_phases, feeding, food  # noqa: F401 - they register the steps
from engine.evolution.cards import PRINTINGS, build_deck
from engine.evolution.serial import state_from_dict
from engine.evolution.state import EvolutionState
from engine.evolution.step_registry import RoundStart


class EvolutionGame(Game):
    name = "evolution"
    title = "Evolution (with Flight)"
    rules_version = "1"
    min_players = 2
    max_players = 6  # ruling 1
    viewer_script = "viewer.js"
    options_schema = {
        "expansions": OptionSpec("choice", "flight", "Play with the Flight expansion ('flight') or without ('none')",
                                 choices=("flight", "none")),
        "deck": OptionSpec("choice", "standard", "The deck printing: 'standard' (rulings 2, 3) or 'short' (half)",
                           choices=tuple(PRINTINGS)),
        "reserve_size": OptionSpec("int", 40, "Cards set aside as the reserve, with Flight (ruling 4)",
                                   minimum=0, maximum=150),
        "hard_shell_bonus": OptionSpec("int", 4, "Body Size Hard Shell adds against attacks (ruling 16)",
                                       minimum=0, maximum=10),
        "cliff_carryover": OptionSpec("bool", True, "Food left on the Cliff stays for the next round (ruling 13)"),
    }

    def check_options(self, options: dict[str, JSON]) -> None:
        if options["expansions"] == "flight":
            size = len(build_deck(options["deck"], True))
            if options["reserve_size"] >= size:
                raise InvalidOptions(
                    f"option 'reserve_size' must be below the {size} cards of the {options['deck']!r} deck, "
                    f"got {options['reserve_size']!r}")

    def view_scores(self, view: Mapping[str, JSON]) -> list[int]:
        """The final scores once the game is over; before, one rule for every seat of the view: the public scores
        plus the food bags when the view shows every bag (the omniscient one), else the public scores alone. A seat's
        own view shows its own bag only, and adding it would set its score against its rivals' bagless ones."""
        if view.get("scores") is not None:
            return list(view["scores"])
        seats = view["seats"]
        bags = all(isinstance(seat["bag"], int) for seat in seats)
        return [seat["public_score"] + (seat["bag"] if bags else 0) for seat in seats]

    def new_state(self, num_players: int, seed: int, options: Mapping[str, JSON] | None = None) -> EvolutionState:
        self.check_players(num_players)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidOptions(f"seed must be an integer, got {seed!r}")
        full = self.validate_options(options)
        st = EvolutionState(full, seed, num_players)
        deck = build_deck(full["deck"], st.flight)
        st.shuffle(deck)
        if st.flight:  # ruling 4: the reserve comes off the shuffled deck
            size = full["reserve_size"]
            st.reserve, deck = deck[:size], deck[size:]
        st.deck = deck
        st.first = random.Random(f"{seed}:first").randrange(num_players)  # ruling 5
        st.stack = [RoundStart()]
        st.run()
        return st

    def determinize(self, seat: int, view: Mapping[str, JSON], history: Sequence[JSON], seed: int,
                    context: Mapping[str, JSON] | None = None) -> EvolutionState:
        from engine.evolution.determinize import determinize

        return determinize(self, seat, view, history, seed, context)

    def state_from_dict(self, data: Mapping[str, Any]) -> EvolutionState:
        return state_from_dict(self, data)


GAME = EvolutionGame()
EvolutionState.game = GAME
