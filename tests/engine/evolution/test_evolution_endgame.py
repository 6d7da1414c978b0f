"""The reserve, deck exhaustion, the end of the game, scoring and tie-breaks (rulings 4, 21, 22, 23, 27, 29-32)."""

from __future__ import annotations

import random

from evo_helpers import avian, do, make, seat, species

from engine.evolution import GAME, EvolutionState


def play_out(s: EvolutionState, seed: int = 0) -> None:
    rng = random.Random(seed)
    while (d := s.decision()) is not None:
        s.choose(rng.randrange(len(d.options)))


def fed(*traits: str, pop: int = 1, **kw: object) -> dict:
    return species(*traits, pop=pop, food=pop, **kw)  # type: ignore[arg-type]


def test_it_sets_the_reserve_aside_and_deals_from_the_rest() -> None:
    s = GAME.new_state(4, 1)
    d = s.to_dict()
    assert len(d["reserve"]) == 40  # ruling 4
    assert len(d["deck"]) == 129 + 48 - 40 - 4 * 4  # rulings 2, 3: 177 cards with Flight
    assert all(len(seat_data["hand"]) == 4 for seat_data in d["seats"])


def test_it_uses_the_reserve_size_option() -> None:
    assert len(GAME.new_state(2, 1, {"reserve_size": 30}).to_dict()["reserve"]) == 30


def test_it_ends_the_game_after_the_round_whose_deal_ran_out_and_used_the_reserve() -> None:
    # ruling 22: the deck runs out during the deal: the reserve joins it and this round is the last
    s = make(seat(fed()), seat(fed()), deck=["Horns:1"] * 3, reserve=["Fertile:2"] * 20, round=3)
    assert s.round == 4 and s.last_round == 4 and s.reserve_used
    assert len(s.hands[0]) == 4 and len(s.hands[1]) == 4
    play_out(s)
    assert s.phase == "over" and s.round == 4 and s.outcome() is not None


def test_it_does_not_count_a_deal_that_takes_the_last_card_exactly_as_exhaustion() -> None:
    s = make(seat(fed()), seat(fed()), deck=["Horns:1"] * 8, reserve=["Fertile:2"] * 20, round=3)
    assert s.round == 4 and s.last_round is None and not s.reserve_used  # ruling 31
    assert s.to_dict()["deck"] == []


def test_it_plays_one_more_full_round_when_the_deck_runs_out_outside_the_deal() -> None:
    # an extinction draw finds the deck empty: the reserve becomes the deck, and the next round is the last
    s = make(seat(species("Horns", pop=1, food=0), fed()), seat(fed()), deck=[], reserve=["Fertile:2"] * 30,
             round=2)
    assert s.last_round == 3 and s.reserve_used
    assert s.round == 3
    play_out(s)
    assert s.phase == "over" and s.round == 3


def test_it_reshuffles_the_discard_pile_without_flight() -> None:
    s = make(seat(fed()), seat(fed()), deck=["Horns:1"] * 3, discard=["Fertile:2"] * 20,
             options={"expansions": "none"}, round=3)
    assert s.round == 4 and s.last_round == 4 and len(s.hands[0]) == 4  # ruling 22
    d = s.to_dict()
    assert d["discard"] == [] and len(d["deck"]) == 20 - 5 and s.shuffles == 1


def test_it_draws_one_card_per_trait_at_once_when_a_species_goes_extinct() -> None:
    s = make(seat(species("Horns", "Climbing", "Fertile", pop=2, food=0), fed()), seat(fed()),
             deck=["Burrowing:1"] * 3 + ["Horns:2"] * 40)
    # ruling 21, 27: three traits, three cards, drawn at the extinction (before the next deal's cards)
    assert s.round == 2
    assert s.hands[0].count(s.hands[0][0]) >= 3
    assert "Horns:0" in s.to_dict()["discard"]


def test_it_discards_the_flight_card_beside_the_deck_when_an_avian_species_dies() -> None:
    s = make(seat(avian(pop=1, food=0), fed()), seat(fed()), deck=["Horns:2"] * 40)
    assert "Flight:0" not in s.to_dict()["discard"]
    assert len(s.hands[0]) == 1 + 3 + 1  # one card for the Flight trait, then the deal


def test_it_scores_bag_food_population_and_traits_of_surviving_species() -> None:
    s = make(seat(species("Horns", "Climbing", pop=3), bag=7), seat(species(pop=1), bag=2), phase="over")
    assert s.score_parts(0) == {"food": 7, "population": 3, "traits": 2}
    assert s.outcome().scores == (12, 3)  # type: ignore[union-attr]
    view = s.view(None)
    assert view["scores"] == [12, 3]
    assert view["score_parts"] == [{"food": 7, "population": 3, "traits": 2},  # type: ignore[comparison-overlap]
                                   {"food": 2, "population": 1, "traits": 0}]


def test_it_does_not_score_fat_or_upkeep() -> None:
    s = make(seat(species("Fat Tissue", body=3, pop=1, fat=3)), seat(species()), phase="over")
    assert s.score_parts(0) == {"food": 0, "population": 1, "traits": 1}  # ruling 29


def test_it_breaks_ties_by_trait_cards_then_population() -> None:
    # ruling 23, 32: trait cards on surviving species first, then Population
    s = make(seat(species("Horns", pop=1), bag=3), seat(species(pop=2), bag=3), phase="over")
    out = s.outcome()
    assert out.scores == (5, 5) and out.ranks == (1, 2)  # type: ignore[union-attr]
    s = make(seat(species("Horns", pop=1), bag=3), seat(species("Fertile", pop=2), bag=2), phase="over")
    out = s.outcome()
    assert out.scores == (5, 5) and out.ranks == (2, 1)  # type: ignore[union-attr]


def test_it_shares_a_rank_when_every_tie_break_is_equal() -> None:
    s = make(seat(species(pop=1), bag=3), seat(species(pop=1), bag=3), seat(species(pop=1), bag=1),
             phase="over")
    assert s.outcome().ranks == (1, 1, 3)  # type: ignore[union-attr]


def test_it_plays_random_games_to_the_end_for_two_to_six_players() -> None:
    for n in range(2, 7):
        s = GAME.new_state(n, n)
        play_out(s, n)
        out = s.outcome()
        assert out is not None and len(out.scores) == n
        assert all(sum(s.score_parts(i).values()) == out.scores[i] for i in range(n))
        assert s.decision() is None


def test_it_plays_the_short_deck_and_without_flight() -> None:
    for options in ({"deck": "short", "reserve_size": 10}, {"expansions": "none"}):
        s = GAME.new_state(3, 5, options)
        play_out(s, 5)
        assert s.outcome() is not None


def test_it_gives_nobody_an_avian_species_without_flight() -> None:
    s = GAME.new_state(2, 3, {"expansions": "none"})
    rng = random.Random(3)
    while (d := s.decision()) is not None:
        assert d.kind != "avian_card"
        assert s.cliff == 0
        do(s, d.options[rng.randrange(len(d.options))])


def test_view_scores_follow_one_rule_for_every_seat_of_a_view() -> None:
    # A seat's own view shows its bag only: its score there leaves the bag out like its rivals', so a chart never
    # shows it leading by food nobody else's line counts. The omniscient view shows every bag and counts them all.
    s = GAME.new_state(3, 4)
    while s.decision() is not None and not any(s.bags):
        s.choose(0)
    assert any(s.bags), "no food in any bag before the end"
    public = [s.view(None)["seats"][n]["public_score"] for n in range(3)]
    for n in range(3):
        assert GAME.view_scores(s.view(n)) == public
    assert GAME.view_scores(s.view(None)) == [public[n] + s.bags[n] for n in range(3)]
