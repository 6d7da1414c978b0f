"""The viewer's "Branch from here" form and a branch's page beside its parent (docs/branches.md)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from tournaments.models import Bot, BotVersion, Ladder, Match, Seat
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def client_of(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_the_form_is_offered_to_signed_in_users_once_the_match_is_over(parent: Match, bob: Any) -> None:
    assert 'id="branch-form"' in client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert 'id="branch-form"' not in client_of().get(f"/replays/{parent.pk}/").content.decode()
    create_match(parent.ladder, list(parent.seats.values_list("bot_version", flat=True)), parent.seed)  # its set
    assert 'id="branch-form"' not in client_of(bob).get(f"/replays/{parent.pk}/").content.decode()


def test_the_form_keeps_a_private_bots_name_to_itself(parent: Match, alice: Any, bob: Any) -> None:
    private = Bot.objects.create(owner=alice, name="stealthy", game="marine", visibility=Bot.Visibility.PRIVATE)
    version = BotVersion.objects.create(bot=private, number=1, source=b"x", status=BotVersion.Status.ACTIVE)
    Seat.objects.filter(match=parent, number=1).update(bot_version=version)
    page = client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert "stealthy" not in page and "keep private bot" in page
    assert "keep stealthy@1" in client_of(alice).get(f"/replays/{parent.pk}/").content.decode()


def test_submitting_the_form_queues_a_branch_and_opens_its_page(parent: Match, bob: Any) -> None:
    answer = client_of(bob).post(f"/replays/{parent.pk}/branch/", {"step": "9", "seat_1": "random", "force": "",
                                                                   "games": "1"})
    child = Match.objects.get(parent=parent)
    assert answer.status_code == 302 and answer["Location"] == f"/replays/{child.pk}/compare/"
    assert (child.branch_step, child.branch_force) == (9, None)
    page = client_of(bob).get(answer["Location"]).content.decode()
    assert f"Branch #{child.pk}" in page and 'id="compare-waiting"' in page and "queued" in page
    assert "seat 2 plays built-in random instead of greedy-2@1" in page  # the form's second seat: Seat 2
    parents_page = client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert "seat 2 plays built-in random instead of greedy-2@1" in parents_page  # its list of branches


def test_a_refused_branch_goes_back_to_the_step_with_the_reason(parent: Match, bob: Any) -> None:
    client = client_of(bob)
    answer = client.post(f"/replays/{parent.pk}/branch/", {"step": "9", "games": "3"})
    assert answer.status_code == 302 and answer["Location"] == f"/replays/{parent.pk}/#step=9"
    page = client.get(f"/replays/{parent.pk}/").content.decode()
    assert "No branch: more than one game needs resample" in page
    assert not Match.objects.filter(parent=parent).exists()
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "nine"}).status_code == 302
    assert "No branch: step must be a whole number, got &#x27;nine&#x27;" in client.get(
        f"/replays/{parent.pk}/").content.decode()


def test_anonymous_visitors_are_sent_to_log_in(parent: Match) -> None:
    answer = client_of().post(f"/replays/{parent.pk}/branch/", {"step": "9"})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert not Match.objects.filter(parent=parent).exists()


def test_the_branch_page_shows_both_scores_and_where_the_charts_part(parent: Match, bob: Any) -> None:
    client = client_of(bob)
    client.post(f"/replays/{parent.pk}/branch/", {"step": "20", "force": "1"})
    child = Match.objects.get(parent=parent)
    assert run_match(child.pk) == "finished"
    page = client.get(f"/replays/{child.pk}/compare/").content.decode()
    scores = [str(s) for m in (parent, child) for s in m.seats.order_by("number").values_list("score", flat=True)]
    assert all(f'<strong class="score-value">{score}</strong>' in page for score in scores)
    assert 'class="branch-point"' in page and page.count("<polyline") == 4
    assert "step 20 is the branch point" in page
    assert ('class="parted"' in page) == ("the scores part at step" in page)
    assert f'Branch of <a href="/replays/{parent.pk}/#step=20">match #{parent.pk}</a>' in client.get(
        f"/replays/{child.pk}/").content.decode()


def test_a_match_that_is_no_branch_has_no_branch_page(parent: Match) -> None:
    assert client_of().get(f"/replays/{parent.pk}/compare/").status_code == 404
    assert Ladder.objects.filter(name="branches marine").count() == 0


def test_the_form_shares_the_match_requests_rate(parent: Match, bob: Any, monkeypatch: Any) -> None:
    from django.core.cache import cache
    from rest_framework.throttling import ScopedRateThrottle

    cache.clear()
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", dict(ScopedRateThrottle.THROTTLE_RATES, matches="1/hour"))
    client = client_of(bob)
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "3"})["Location"].endswith("/compare/")
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "4"})["Location"] == f"/replays/{parent.pk}/#step=4"
    assert "No branch: too many match requests" in client.get(f"/replays/{parent.pk}/").content.decode()
    assert Match.objects.filter(parent=parent).count() == 1
    cache.clear()


def test_the_branch_page_leads_with_the_outcome_the_moves_in_words_and_a_chart_with_axes(parent: Match,
                                                                                         bob: Any) -> None:
    client = client_of(bob)
    client.post(f"/replays/{parent.pk}/branch/", {"step": "20", "force": "0"})
    child = Match.objects.get(parent=parent)
    assert run_match(child.pk) == "finished"
    page = client.get(f"/replays/{child.pk}/compare/").content.decode()
    rows = {m.pk: list(m.seats.order_by("number").values_list("score", "rank")) for m in (parent, child)}
    for (old_score, old_rank), (new_score, new_rank) in zip(rows[parent.pk], rows[child.pk], strict=True):
        assert f"(rank {old_rank})" in page and f"(rank {new_rank})" in page
        difference = new_score - old_score
        assert f'<td class="difference">{"+" if difference > 0 else ""}{difference}</td>' in page
    sentence = page.split('id="outcome-sentence"><strong>')[1].split("</strong>")[0]
    winner = [n for n, (_, rank) in enumerate(rows[parent.pk]) if rank == 1]
    if winner == [n for n, (_, rank) in enumerate(rows[child.pk]) if rank == 1]:
        assert sentence.startswith(f"Seat {winner[0] + 1} wins either way; its margin ")
    else:
        assert sentence.startswith(f"Seat {winner[0] + 1} won the parent; in the branch Seat ")
    assert "The forced move at step 20" in page and 'id="compare-moves-data"' in page
    assert "replays/compare.js" in page and "/replays/games/marine.js" in page
    assert 'class="y-axis"' in page and 'class="x-axis"' in page and "branch point, step 20" in page
    assert f"parent #{parent.pk}</li>" in page and f"branch #{child.pk}</li>" in page


@pytest.mark.parametrize(("parent", "branch", "said"), [
    ([(58, 1), (26, 2), (78, 1), (28, 2)], [(54, 2), (27, 2), (77, 1), (24, 2)], None),
    ([(40, 2), (60, 1)], [(41, 2), (47, 1)], "Seat 2 wins either way; its margin falls from 20 to 6."),
    ([(40, 2), (60, 1)], [(40, 2), (60, 1)], "Seat 2 wins either way; its margin stays at 20."),
    ([(40, 2), (60, 1)], [(70, 1), (60, 2)], "Seat 2 won the parent; in the branch Seat 1 wins by 10, and Seat 2 "
                                             "comes 2nd."),
    ([(50, 1), (50, 1), (10, 3)], [(50, 1), (50, 1), (45, 3)],
     "Seats 1 and 2 share first place either way; the lead over the rest falls from 40 to 5."),
])
def test_the_outcome_sentence(parent: list[tuple[int, int]], branch: list[tuple[int, int]], said: str | None) -> None:
    from replays.branch_pages import outcome_sentence

    rows = [{"number": n, "parent_score": old[0], "parent_rank": old[1], "branch_score": new[0],
             "branch_rank": new[1]} for n, (old, new) in enumerate(zip(parent, branch, strict=True))]
    if said is None:  # the example: two seats shared first in the parent (ranks as given)
        assert outcome_sentence(rows, True).startswith("Seats 1 and 3 shared first place in the parent; in the "
                                                       "branch Seat 3 wins by 23")
    else:
        assert outcome_sentence(rows, True) == said
    assert outcome_sentence(rows, False) == "The branch has not finished yet: its outcome appears here once it has."


def test_a_resampled_batch_is_summarised_on_the_page_in_the_command_and_the_api(parent: Match, bob: Any) -> None:
    from io import StringIO

    from rest_framework.test import APIClient

    from replays.management.commands.branch import Command

    client = client_of(bob)
    client.post(f"/replays/{parent.pk}/branch/", {"step": "30", "resample": "on", "games": "4"})
    children = list(Match.objects.filter(parent=parent).order_by("pk"))
    page = client.get(f"/replays/{children[0].pk}/compare/").content.decode()
    assert "This batch: 4 re-dealt games" in page and "0 games played so far: too few to tell" in page
    for child in children:
        assert run_match(child.pk) == "finished"
    page = client.get(f"/replays/{children[1].pk}/compare/").content.decode()
    assert "(4 finished)" in page and 'id="batch-table"' in page
    said = html.unescape(page.split('id="batch-said"><strong>')[1].split("</strong>")[0])
    assert said.startswith(("No difference the batch can see: in 4 games", "A difference the batch can see in 4 "))
    out = StringIO()
    command = Command(stdout=out)
    command.print_results(parent, [c.pk for c in children])
    text = out.getvalue()
    assert "batch of 4 resampled branches at step 30 (4 finished): against the parent's outcome" in text
    assert "  seat 1: parent" in text and "mean score" in text and said.rstrip(".") in text
    api = APIClient()
    batches = api.get(f"/api/matches/{parent.pk}/branches/").json()["batches"]
    assert [(b["games"], b["finished"], b["branches"]) for b in batches] == [(4, 4, [c.pk for c in children])]
    seat = batches[0]["seats"][0]
    assert seat["score"]["low"] <= seat["score"]["mean"] <= seat["score"]["high"] and seat["score"]["n"] == 4
    assert 0 <= seat["win_rate"]["low"] <= seat["win_rate"]["high"] <= 1


def test_a_batch_sees_a_parent_outcome_none_of_its_games_could_have(parent: Match) -> None:
    from replays.branch_batches import summarise

    children = []
    for n, scores in enumerate([(60, 40), (62, 41), (59, 43), (61, 40), (60, 42)]):
        child = create_match(parent.ladder, list(parent.seats.values_list("bot_version", flat=True)), parent.seed)
        Match.objects.filter(pk=child.pk).update(status=Match.Status.FINISHED, parent=parent, branch_step=5,
                                                 branch_resample=n)
        for number, score in enumerate(scores):
            Seat.objects.filter(match=child, number=number).update(score=score, rank=1 if number == 0 else 2)
        children.append(Match.objects.get(pk=child.pk))
    Seat.objects.filter(match=parent, number=0).update(score=30, rank=2)
    Seat.objects.filter(match=parent, number=1).update(score=41, rank=1)
    said = summarise(Match.objects.get(pk=parent.pk), children)["said"]
    assert said.startswith("A difference the batch can see in 5 games: seat 1 scored 30 in the parent, where the "
                           "batch's games score ")
    assert "seat 2" not in said


@pytest.mark.parametrize(("p", "df", "t"), [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 3, 3.1824),
                                            (0.975, 10, 2.2281), (0.995, 5, 4.0321), (0.975, 100, 1.984)])
def test_students_t_quantiles_match_the_tables(p: float, df: int, t: float) -> None:
    from replays.branch_batches import t_quantile

    assert t_quantile(p, df) == pytest.approx(t, abs=1e-3)


def test_forcing_the_played_move_says_so_and_where_the_games_then_part(parent: Match, bob: Any) -> None:
    from replays.models import Replay

    played = Replay.objects.get(match=parent).action_log()[19]["choice"]
    client = client_of(bob)
    client.post(f"/replays/{parent.pk}/branch/", {"step": "20", "force": str(played), "seat_1": "random"})
    child = Match.objects.get(parent=parent)
    assert run_match(child.pk) == "finished"
    page = client.get(f"/replays/{child.pk}/compare/").content.decode()
    assert "The forced move at step 20" in page
    assert "The option forced is the one the parent played; the games first move differently at step " in page


def test_a_branch_of_a_match_not_over_words_its_moves_without_the_choices(parent: Match, bob: Any,
                                                                          admin_user: Any) -> None:
    """The options chosen are a seat's secret until the match is over: the page's moves carry none for bob."""
    from replays.branches import BranchRequest, create_branches

    [child] = create_branches(parent, admin_user, BranchRequest(step=20, force=0))
    assert run_match(child.pk) == "finished"
    create_match(parent.ladder, list(parent.seats.values_list("bot_version", flat=True)), parent.seed)  # its set
    hidden = client_of(bob).get(f"/replays/{child.pk}/compare/").content.decode()
    shown = client_of(admin_user).get(f"/replays/{child.pk}/compare/").content.decode()
    assert '"choices": null' in hidden and '"options": null' in hidden
    assert '"choices": [' in shown
