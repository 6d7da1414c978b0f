"""Carnivores and defences (rulings 16, 17, 28)."""

from __future__ import annotations

import pytest
from evo_helpers import avian, do, kind, make, options, row, seat, sp, species

from engine.core import IllegalAction

WAIT = seat(species(pop=6), species(pop=6))


def carnivore_vs(defender: dict, *attacker_traits: str, body: int = 3, pop: int = 3, hand: tuple[str, ...] = (),
                 neighbours: tuple[dict, ...] = (), **kw: object):
    """Seat 0: a hungry carnivore and a hungry plant eater (so seat 0 must choose); seat 1: the defender, then
    two hungry plant eaters (so the game waits for seat 1 after the attack)."""
    return make(seat(species("Carnivore", *attacker_traits, body=body, pop=pop), species(pop=6), hand=hand),
                seat(defender, *neighbours, species(pop=6), species(pop=6)), wh=3, **kw)


def targets(s) -> list:
    """The legal targets of seat 0's first species, asked through the contract whatever the pending decision."""
    return s.options_at(["attack_target", 0, sp(s, 0, 0)["id"]])


def test_it_attacks_a_smaller_species_and_takes_meat_equal_to_its_body_size() -> None:
    s = carnivore_vs(species(body=2, pop=2))
    do(s, [0, "attack"])
    assert kind(s) == "attack_target"
    assert options(s) == [[0, 1], [1, 0], [1, 1], [1, 2]]
    do(s, [1, 0])
    assert sp(s, 0, 0)["food"] == 2
    assert sp(s, 1, 0)["population"] == 1


def test_it_needs_a_larger_body_size_to_attack() -> None:
    s = carnivore_vs(species(body=3, pop=2))
    assert [1, 0] not in targets(s)


def test_it_never_lets_a_carnivore_attack_itself_but_allows_its_own_species() -> None:
    s = make(seat(species("Carnivore", body=3, pop=2), species(body=1, pop=6)), WAIT, wh=3)
    assert targets(s) == [[0, 1], [1, 0], [1, 1]]


def test_it_adds_population_to_body_size_with_pack_hunting() -> None:
    s = carnivore_vs(species(body=4, pop=1), "Pack Hunting", body=2, pop=3)
    assert [1, 0] in targets(s)


def test_it_adds_the_hard_shell_bonus_to_the_defender() -> None:
    s = carnivore_vs(species("Hard Shell", body=1, pop=1), body=5)
    assert [1, 0] not in targets(s)
    s = carnivore_vs(species("Hard Shell", body=1, pop=1), body=6)
    assert [1, 0] in targets(s)


def test_it_uses_the_hard_shell_bonus_option() -> None:
    s = carnivore_vs(species("Hard Shell", body=1, pop=1), body=5, options={"hard_shell_bonus": 3})
    assert [1, 0] in targets(s)  # the first printing's +3


def test_it_blocks_attack_on_climbing_unless_the_carnivore_climbs() -> None:
    assert [1, 0] not in targets(carnivore_vs(species("Climbing", pop=2)))
    assert [1, 0] in targets(carnivore_vs(species("Climbing", pop=2), "Climbing"))


def test_it_blocks_attack_on_burrowing_species_when_fed() -> None:
    assert [1, 0] not in targets(carnivore_vs(species("Burrowing", pop=2, food=2)))
    assert [1, 0] in targets(carnivore_vs(species("Burrowing", pop=2, food=1)))


def test_it_blocks_attack_by_defensive_herding_unless_the_carnivore_outnumbers() -> None:
    assert [1, 0] not in targets(carnivore_vs(species("Defensive Herding", pop=3), pop=3))
    assert [1, 0] in targets(carnivore_vs(species("Defensive Herding", pop=3), pop=4))


def test_it_blocks_attack_by_symbiosis_while_the_right_neighbour_is_larger() -> None:
    assert [1, 0] not in targets(carnivore_vs(species("Symbiosis", body=1), neighbours=(species(body=2),)))
    assert [1, 0] in targets(carnivore_vs(species("Symbiosis", body=2), neighbours=(species(body=2),)))


def test_it_blocks_attack_next_to_warning_call_unless_ambush() -> None:
    assert [1, 0] not in targets(carnivore_vs(species(), neighbours=(species("Warning Call"),)))
    assert [1, 0] in targets(carnivore_vs(species(), "Ambush", neighbours=(species("Warning Call"),)))
    s = carnivore_vs(species("Warning Call"))
    assert [1, 0] in targets(s)  # Warning Call protects the neighbours, not itself


def test_it_blocks_attack_on_camouflage_unless_good_eyesight() -> None:
    assert [1, 0] not in targets(carnivore_vs(species("Camouflage")))
    assert [1, 0] in targets(carnivore_vs(species("Camouflage"), "Good Eyesight"))


def test_it_blocks_a_land_carnivore_from_attacking_an_avian_species() -> None:
    assert [1, 0] not in targets(carnivore_vs(avian(body=1, pop=2)))


def test_it_lets_an_avian_carnivore_attack_an_avian_species() -> None:
    s = make(seat(avian("Carnivore", body=3, pop=2), species(pop=6)), seat(avian(body=1, pop=2)), wh=3)
    assert [1, 0] in targets(s)


def test_it_lets_intelligence_negate_flight_for_a_card() -> None:
    s = carnivore_vs(avian(body=1, pop=2), "Intelligence", hand=("Horns:1", "Fertile:2"))
    do(s, [0, "attack"], [1, 0])
    assert kind(s) == "negate_card" and options(s) == ["Fertile:2", "Horns:1"]
    assert s.decision().prompt == "Choose a card to discard to negate Flight."  # the step's field, by name
    events = do(s, "Horns:1")
    assert any(e["event"] == "negate" and e["trait"] == "Flight" for e in events)
    assert sp(s, 1, 0)["population"] == 1 and sp(s, 0, 0)["food"] == 1
    assert s.hands[0] and len(s.hands[0]) == 1


def test_it_needs_one_card_per_negated_defence() -> None:
    defender = species("Climbing", "Camouflage", pop=2)
    assert [1, 0] not in targets(carnivore_vs(defender, "Intelligence", hand=("Horns:1",)))
    assert [1, 0] in targets(carnivore_vs(defender, "Intelligence", hand=("Horns:1", "Horns:2")))


def test_it_lets_an_avian_carnivore_discard_to_negate_climbing_symbiosis_or_warning_call() -> None:
    for defence in ("Climbing", "Symbiosis"):
        s = make(seat(avian("Carnivore", body=3, pop=2), species(pop=6), hand=["Horns:1"]),
                 seat(species(defence, pop=2), species(body=2)), wh=3)
        assert [1, 0] in targets(s)
    s = make(seat(avian("Carnivore", body=3, pop=2), species(pop=6), hand=["Horns:1"]),
             seat(species(pop=2), species("Warning Call")), wh=3)
    assert [1, 0] in targets(s)
    s = make(seat(avian("Carnivore", body=3, pop=2), species(pop=6), hand=["Horns:1"]),
             seat(species("Camouflage", pop=2)), wh=3)
    assert [1, 0] not in targets(s)  # Camouflage is not among the three (seed 000)
    s = make(seat(avian("Carnivore", body=3, pop=2), species(pop=6), hand=["Horns:1"]),
             seat(species("Climbing", pop=2), species(pop=6), species(pop=6)), wh=3)
    do(s, [0, "attack"], [1, 0])
    assert kind(s) == "negate_card"  # ruling 28: the one card negates the chosen trait
    events = do(s, "Horns:1")
    assert [e["trait"] for e in events if e["event"] == "negate"] == ["Climbing"]


def test_it_makes_horns_cost_the_attacker_one_population() -> None:
    s = carnivore_vs(species("Horns", pop=2), pop=3)
    do(s, [0, "attack"], [1, 0])
    assert sp(s, 0, 0)["population"] == 2
    assert sp(s, 0, 0)["food"] == 1 and sp(s, 1, 0)["population"] == 1


def test_it_completes_the_attack_when_horns_kill_the_attacker() -> None:
    # ruling 28: the defender still loses 1, Scavengers still eat, the dead carnivore takes no meat
    s = make(seat(species("Carnivore", body=3, pop=1), species(pop=6)),
             seat(species("Horns", body=1, pop=2), species("Scavenger", pop=2), species(pop=6)), wh=3,
             deck=["Fertile:3"] * 9)
    events = do(s, [0, "attack"], [1, 0])
    assert len(row(s, 0)) == 1
    assert sp(s, 1, 0)["population"] == 1 and sp(s, 1, 1)["food"] == 1
    assert len(s.hands[0]) == 1  # one card drawn for the one trait (ruling 21, 27)
    assert not [e for e in events if e["event"] == "food" and e["seat"] == 0]


def test_it_lets_intelligence_negate_horns() -> None:
    s = carnivore_vs(species("Horns", pop=2), "Intelligence", hand=("Fertile:2", "Fertile:3"))
    do(s, [0, "attack"], [1, 0])
    assert kind(s) == "negate_horns" and options(s) == ["keep", "Fertile:2", "Fertile:3"]
    do(s, "Fertile:2")
    assert sp(s, 0, 0)["population"] == 3


def test_it_makes_a_hungry_carnivore_attack_when_fed_and_lets_it_attack_its_own_kind() -> None:
    s = make(seat(species("Carnivore", body=2, pop=1), species("Carnivore", body=1, pop=1)),
             seat(avian(pop=1)), wh=0, cliff=0, deck=["Fertile:3"] * 9)
    # ruling 17: the only species that can eat is the big carnivore, and its only target is its own small one
    assert s.round == 2 and len(s.rows[0]) == 1 and s.bags[0] == 1


def test_it_feeds_every_scavenger_but_the_attacker() -> None:
    s = make(seat(species("Carnivore", "Scavenger", body=3, pop=3), species("Scavenger", pop=2), species(pop=6)),
             seat(species("Scavenger", pop=2), species(pop=2), species(pop=6)), wh=3)
    do(s, [0, "attack"], [1, 1])
    assert sp(s, 0, 0)["food"] == 1
    assert sp(s, 0, 1)["food"] == 1 and sp(s, 1, 0)["food"] == 1  # ruling 28


def test_it_bags_the_excess_food_of_an_attacked_species() -> None:
    s = carnivore_vs(species(pop=2, food=2))
    do(s, [0, "attack"], [1, 0])
    assert sp(s, 1, 0)["food"] == 1 and s.bags[1] == 1


def test_it_makes_an_attacked_species_extinct_at_zero_and_its_owner_draws() -> None:
    s = carnivore_vs(species("Horns", "Fertile", pop=1), body=3, pop=4, deck=["Fertile:3"] * 9)
    do(s, [0, "attack"], [1, 0])
    assert len(row(s, 1)) == 2
    assert len(s.hands[1]) == 2  # one card per trait, at once (ruling 21, 27)
    assert "Horns:0" in s.to_dict()["discard"]


def test_it_refuses_an_attack_target_that_is_not_offered_and_changes_nothing() -> None:
    s = carnivore_vs(species(body=5, pop=2), neighbours=(species(body=1),))
    do(s, [0, "attack"])
    before = s.to_dict()
    with pytest.raises(IllegalAction, match="attack_target"):
        s.apply([1, 0])
    assert s.to_dict() == before
