"""Who sees what (docs/architecture.md#api-and-web): the one rule for bots, versions, matches, seats, logs, seeds and
frames.

The API, the pages, the replay viewer's JSON, the feeds and the admin all ask this module; none decides on its own.

- **Staff** see everything, always.
- **Bots and versions.** A public bot and its versions' metadata are for everyone; a private one only for its owner.
  A version's source and validation log, and a seat's captured stderr, only for the bot's owner.
- **Seating.** Only the versions a user may see may be seated by that user (so only its owner seats a private
  version); a version the user may not see answers exactly like one that does not exist.
- **Private bots in play.** A private version seated by its owner plays in public matches, but others see its seat
  as an unnamed "private bot": no name, owner, version, hash or rating, and filters by it find nothing.
- **Matches.** A match's secrets (its seed, the omniscient view, every seat's view and every seat's choices) open
  once it is *over*: finished, and every other match of its competition dealt from the same seed (the other games
  of its set) finished too. Before that, a seat's view and its own choices are for that seat's bot owner, and
  everyone sees the public events. Failed and cancelled matches may be requeued with their seed: not over.
- **Validation matches** (a new version's smoke match, kept unrated in the system's paused "validation <game>"
  ladder) of a private bot never open: its seat's view, every seat's choices, the seed and the omniscient view stay
  with the bot's owner (its own seat) and staff, as if the match were still running.
- **Branches** (docs/branches.md) show nobody more than their parent: a branch is over only once it is finished and
  its parent is over, so a branch of a match that is not over (only staff may make one) keeps its secrets, and a
  private validation match's branches never open.
- **Tournaments** derive their matches' seeds from theirs: it opens once the tournament is finished.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet

from tournaments.builtins import SYSTEM_USER
from tournaments.models import Bot, BotVersion, Match, Seat, Tournament, VersionTest, VersionTestGame
from tournaments.system_ladders import VALIDATION_LADDER

PRIVATE_LABEL = "private bot"
OMNISCIENT = "omniscient"
PUBLIC = "public"  # the view every seat shares (replays.frames.public_view)
UNFINISHED = [Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.FAILED, Match.Status.CANCELLED]


def new_seed() -> int:
    """A seed nobody can guess (the engine is deterministic: a known seed is a known deck)."""
    return random.SystemRandom().getrandbits(62)


def secret_seed(*parts: object) -> int:
    """A 62-bit seed from these parts and SECRET_KEY: the same parts give the same seed on this site, so a history
    replays the same, yet nobody without the key can compute it."""
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hmac.new(settings.SECRET_KEY.encode(), text, hashlib.sha256).digest()[:8], "big") >> 2


# --- people ---------------------------------------------------------------------------------------------------------


def is_staff(user: Any) -> bool:
    return bool(user and user.is_authenticated and user.is_staff)


def is_owner(user: Any, owner_id: int | None) -> bool:
    """Staff, or the user whose id is owner_id."""
    return is_staff(user) or bool(user and user.is_authenticated and owner_id == user.pk)


# --- bots and versions ----------------------------------------------------------------------------------------------


def visible_bots(user: Any, prefix: str = "") -> Q:
    """The bots a user may see (a Q on Bot, or on a model reaching Bot through `prefix`, e.g. "bot__")."""
    if is_staff(user):
        return Q()
    visible = Q(**{f"{prefix}visibility": Bot.Visibility.PUBLIC})
    if user and user.is_authenticated:
        visible |= Q(**{f"{prefix}owner": user})
    return visible


def visible_versions(user: Any) -> QuerySet[BotVersion]:
    """The versions a user may see, and so may seat: of public bots, their own, or all for staff."""
    return BotVersion.objects.filter(visible_bots(user, "bot__"))


def can_see_bot(user: Any, bot: Bot) -> bool:
    return is_shown(user, bot.visibility, bot.owner_id)


def is_shown(user: Any, visibility: str, owner_id: int | None) -> bool:
    """Whether a bot with this visibility and owner is shown to the user (for rows read as plain values)."""
    return visibility == Bot.Visibility.PUBLIC or is_owner(user, owner_id)


def hidden_versions(user: Any, version_ids: Iterable[int]) -> set[int]:
    """Those of these versions the user may not see (one query; none for staff)."""
    ids = set(version_ids)
    if is_staff(user) or not ids:
        return set()
    return ids - set(visible_versions(user).filter(pk__in=ids).values_list("pk", flat=True))


# --- seats ----------------------------------------------------------------------------------------------------------


def seat_label(user: Any, version: BotVersion) -> str:
    return version.label if can_see_bot(user, version.bot) else PRIVATE_LABEL


def can_see_seat_log(user: Any, owner_id: int | None) -> bool:
    """A seat's captured stderr: its bot's owner and staff only, before and after the match is over."""
    return is_owner(user, owner_id)


def shown_seat(row: dict[str, Any], is_visible: bool) -> dict[str, Any]:
    """An API seat row as shown: whole, or with the private bot's identity, rating and log blanked."""
    if is_visible:
        return row
    blank = ("bot_version", "bot", "version", "owner", "log", "rating_mu_before", "rating_mu_after",
             "rating_sigma_before", "rating_sigma_after")
    return dict(row, bot_name=PRIVATE_LABEL, **dict.fromkeys(blank))


def shown_header(user: Any, header: dict[str, Any]) -> dict[str, Any]:
    """A replay header whose hidden seats keep only their number (the file still verifies: seats are not
    replayed)."""
    seats = header.get("seats", [])
    hidden = hidden_versions(user, [seat["bot_version"] for seat in seats if seat.get("bot_version")])
    shown = [{"seat": seat.get("seat"), "bot": PRIVATE_LABEL} if seat.get("bot_version") in hidden else seat
             for seat in seats]
    return dict(header, seats=shown)


# --- matches --------------------------------------------------------------------------------------------------------


def is_over(match: Match) -> bool:
    """Finished, and no other match of its competition dealt from its seed is still to be played."""
    return match.pk in over_ids([{"id": match.pk, "status": match.status, "seed": match.seed,
                                  "ladder": match.ladder_id, "tournament": match.tournament_id,
                                  "parent": match.parent_id}])


def over_ids(rows: list[dict[str, Any]]) -> set[int]:
    """The ids of the matches (rows with id, status, seed, ladder, tournament, parent) that are over, in one query
    (a few more for validation matches and branches)."""
    over = _over_alone(rows)
    branches = [row for row in rows if row["id"] in over and row["parent"] is not None]
    if not branches:
        return over
    parents: list[dict[str, Any]] = [dict(row) for row in Match.objects.filter(
        pk__in={row["parent"] for row in branches}).values("id", "status", "seed", "ladder", "tournament", "parent")]
    open_parents = over_ids(parents)  # a branch of a branch: up the chain
    return over - {row["id"] for row in branches if row["parent"] not in open_parents}


def _over_alone(rows: list[dict[str, Any]]) -> set[int]:
    """over_ids without looking at parents."""
    finished = [row for row in rows if row["status"] == Match.Status.FINISHED]
    if not finished:
        return set()
    pending = set(Match.objects.filter(status__in=UNFINISHED, seed__in={row["seed"] for row in finished})
                  .filter(Q(ladder_id__in={row["ladder"] for row in finished if row["ladder"]})
                          | Q(tournament_id__in={row["tournament"] for row in finished if row["tournament"]}))
                  .values_list("ladder_id", "tournament_id", "seed"))
    over = {row["id"] for row in finished if (row["ladder"], row["tournament"], row["seed"]) not in pending}
    if not any(row["ladder"] for row in finished if row["id"] in over):
        return over
    private = Seat.objects.filter(validation_matches("match__"), match_id__in=over,
                                  bot_version__bot__visibility=Bot.Visibility.PRIVATE)
    return over - set(private.values_list("match_id", flat=True))


def validation_matches(prefix: str = "") -> Q:
    """The validation matches (a Q on Match, or on a model reaching Match through `prefix`, e.g. "match__"): in a
    ladder the system user made and named "validation <game>"; an organiser's ladder of that name is not one."""
    return Q(**{f"{prefix}ladder__created_by__username": SYSTEM_USER,
                f"{prefix}ladder__name__startswith": VALIDATION_LADDER})


def can_see_secrets(user: Any, is_match_over: bool) -> bool:
    """The seed, the omniscient view and every seat's view and choices."""
    return is_match_over or is_staff(user)


def can_see_seat(user: Any, match: Match, seat: int, is_match_over: bool) -> bool:
    """A seat's view and its own choices: once over for everyone; before, its bot's owner."""
    if can_see_secrets(user, is_match_over):
        return True
    owner = match.seats.filter(number=seat).values_list("bot_version__bot__owner_id", flat=True).first()
    return owner is not None and is_owner(user, owner)


def allowed_views(user: Any, match: Match, over: bool | None = None) -> list[str]:
    """The views this user may pick now: seat numbers as strings, then "public" (what every seat sees: anyone, at
    any time), then "omniscient"."""
    over = is_over(match) if over is None else over
    views = [str(seat) for seat in range(match.num_players) if can_see_seat(user, match, seat, over)] + [PUBLIC]
    return views + [OMNISCIENT] if can_see_secrets(user, over) else views


def public_action(record: dict[str, Any]) -> dict[str, Any]:
    """An action record without its choice index: an index into a seat's options (which list its hand) hints at the
    hand."""
    return {key: value for key, value in record.items() if key != "choice"}


def seat_frames(frames: list[dict[str, Any]], seat: int | str | None, is_match_over: bool) -> list[dict[str, Any]]:
    """Frames for one view: before the match is over, other seats' actions lose their choice (in the public view,
    every seat's)."""
    if is_match_over or seat is None:
        return frames
    for frame in frames:
        for key in ("action", "decided"):
            if frame.get(key) is not None and frame[key].get("seat") != seat:
                frame[key] = public_action(frame[key])
    return frames


# --- tournaments ----------------------------------------------------------------------------------------------------


def can_see_tournament_seed(user: Any, tournament: Tournament) -> bool:
    return tournament.state == Tournament.State.FINISHED or is_staff(user)


# --- version tests --------------------------------------------------------------------------------------------------


def visible_tests(user: Any) -> Q:
    """The version tests a user may see (a Q on VersionTest): public ones, whose new and base bots are public now
    too (a bot made private after the test began is hidden as its matches are); a private one (a private version
    plays in it) only for the user who started it, and staff (docs/version-tests.md#who-sees-a-test)."""
    if is_staff(user):
        return Q()
    visible = Q(visibility=Bot.Visibility.PUBLIC, new__bot__visibility=Bot.Visibility.PUBLIC,
                base__bot__visibility=Bot.Visibility.PUBLIC)
    if user and user.is_authenticated:
        visible |= Q(owner=user)
    return visible


def can_see_test_seed(test: Any) -> bool:
    """A test's secret seed derives every deal: it opens once the test has ended and none of its games is still to
    be played or could be played again (queued, running, failed or cancelled: a cancel leaves a running game
    playing, and a failed or cancelled game can be requeued), as a match's own seed waits for its siblings."""
    if test.is_running():
        return False
    open_games = getattr(test, "open_games", None)  # with_open_games's annotation: a list reads it in its query
    if open_games is None:
        open_games = test.games.filter(match__status__in=UNFINISHED).exists()
    return not open_games


def with_open_games(tests: QuerySet[VersionTest]) -> QuerySet[VersionTest]:
    """Tests annotated for can_see_test_seed, so that a list of them does not ask once per test."""
    return tests.annotate(open_games=Exists(VersionTestGame.objects.filter(
        test=OuterRef("pk"), match__status__in=UNFINISHED)))
