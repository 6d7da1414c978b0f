"""run_tournament refuses bad input with a clear CommandError and leaves nothing behind."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments.models import Bot, BotVersion, Match, Tournament

pytestmark = pytest.mark.django_db

BAD_INPUT = [
    (["--game", "chess", "--bots", "greedy,random", "--players", "2"], "unknown game 'chess'; known games:"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--options", '{"colour": "red"}'],
     "unknown option(s) 'colour' for evolution"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--options", "[1]"],
     "--options must be a JSON object"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--options", "{oops"],
     "--options is not JSON"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "3"],
     "a table of 3 needs at least 3 bots, got 2"),
    (["--game", "evolution", "--bots", "greedy,random,greedy-2:greedy,random-2:random,greedy-3:greedy,"
      "random-3:random,greedy-4:greedy", "--players", "7"], "evolution takes 2-6 players, got 7"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "1"], "evolution takes 2-6 players, got 1"),
    (["--game", "evolution", "--bots", "greedy,alphazero", "--players", "2"], "unknown bot 'alphazero'"),
    (["--game", "evolution", "--bots", "greedy,nobody/nothing", "--players", "2"], "unknown bot 'nobody/nothing'"),
    (["--game", "evolution", "--bots", "greedy,greedy", "--players", "2"], "each bot may enter only once"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--games", "0"],
     "--games must be between 1 and 32767, got 0"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--games", "40000"],
     "--games must be between 1 and 32767, got 40000"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--max-faults", "0"],
     "--max-faults must be between 1 and 2147483647, got 0"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--move-ms", "0"],
     "--move-ms must be between 1 and 2147483647, got 0"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--format", "single_elimination",
      "--best-of", "2"], "--best-of: best of 2 sets can end level; use an odd number"),
    (["--game", "evolution", "--bots", "greedy,random", "--players", "2", "--games", "32767"],
     "--games: 2 entries at tables of 2 with 32767 game(s) per set make 32767 matches at once; the limit is 5000 "
     "(LUDUS_TOURNAMENT_MAX_MATCHES)"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT, ids=[m.split(";")[0][:40] for _, m in BAD_INPUT])
def test_it_refuses_bad_input_and_creates_nothing(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as raised:
        call_command("run_tournament", *args, stdout=io.StringIO())
    assert message in str(raised.value)
    assert (Tournament.objects.count(), Match.objects.count(), Bot.objects.count()) == (0, 0, 0)
    assert get_user_model().objects.count() == 0


def test_it_refuses_an_uploaded_bot_without_an_active_version_and_rolls_back(alice: object) -> None:
    bot = Bot.objects.create(owner=alice, name="draft", game="evolution")
    BotVersion.objects.create(bot=bot, number=1, source=b"print(1)", status=BotVersion.Status.PENDING)
    with pytest.raises(CommandError, match="bot alice/draft has no active version"):
        call_command("run_tournament", "--game", "evolution", "--bots", "greedy,alice/draft", "--players", "2",
                     stdout=io.StringIO())
    assert (Tournament.objects.count(), Match.objects.count()) == (0, 0)
    assert not Bot.objects.filter(name="greedy").exists()  # the built-in registration rolled back too
