"""Bots, their immutable versions, competitions, matches, seats and ratings (docs/architecture.md#data-model).

Invariants live in the database where it can hold them: unique names and numbers, one seat per (match, number),
exactly one competition per match and rating.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from engine import InvalidOptions, load_game
from tournaments.rating_rule import conservative


def _check_game(game: str, options: Any, players: int | None, errors: dict[str, str]) -> None:
    """Collect form errors for an unknown game, bad options or a player count outside the game's range."""
    try:
        spec = load_game(game)
    except InvalidOptions as exc:
        errors["game"] = str(exc)
        return
    except ImportError as exc:  # registered but not installed yet
        errors["game"] = f"game {game!r} cannot be loaded: {exc}"
        return
    try:
        spec.validate_options(options)
    except InvalidOptions as exc:
        errors["options"] = str(exc)
    if players is not None:
        try:
            spec.check_players(players)
        except InvalidOptions as exc:
            errors["players_per_table"] = str(exc)


class Clocked(models.Model):
    """The clock and fault limit a competition or a match plays with
    (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox)."""

    move_ms = models.PositiveIntegerField(default=1000, validators=[MinValueValidator(1)])
    bank_ms = models.PositiveIntegerField(default=10000)
    max_faults = models.PositiveIntegerField(default=3, validators=[MinValueValidator(1)],
                                             help_text="faults after which a seat forfeits (at least 1)")

    class Meta:
        abstract = True


class Bot(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public"
        PRIVATE = "private"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    name = models.SlugField(max_length=64)
    game = models.CharField(max_length=32)
    description = models.TextField(blank=True)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set by tournaments.bot_lifecycle.flag_faulty_bots when the bot keeps faulting; shown to its owner.
    flagged_reason = models.TextField(blank=True)
    flagged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_name_unique_per_owner")]
        ordering = ["owner_id", "name"]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class BotVersion(models.Model):
    """One uploaded (or built-in) version of a bot. Its source never changes once stored."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALIDATING = "validating"
        ACTIVE = "active"
        REJECTED = "rejected"
        RETIRED = "retired"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # In the database, not on disk: workers on other machines share only PostgreSQL and Redis.
    source = models.BinaryField(blank=True)
    filename = models.CharField(max_length=128, blank=True)
    sha256 = models.CharField(max_length=64, editable=False)
    size = models.PositiveIntegerField(editable=False, default=0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    validation_log = models.TextField(blank=True)
    # When a validator claimed it; a claim older than the validation lease may be taken over (workers/validation.py).
    validating_since = models.DateTimeField(null=True, blank=True, editable=False)
    builtin = models.CharField(max_length=32, blank=True, help_text="the engine bot name for trusted built-ins")
    created_at = models.DateTimeField(auto_now_add=True)
    # Its language (its ludus.toml, tournaments/languages.py) and, once validation built it, the toolchain that did
    # and the built files: matches run the artifact, never the compiler (workers/sandbox/build.py).
    language = models.CharField(max_length=16, default="python", editable=False)
    toolchain = models.CharField(max_length=200, blank=True, editable=False)
    artifact = models.BinaryField(blank=True, default=b"", editable=False)
    artifact_sha256 = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="version_number_unique_per_bot"),
            models.CheckConstraint(condition=Q(number__gte=1), name="version_number_positive"),
        ]
        ordering = ["bot_id", "number"]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def label(self) -> str:
        return self.label_of(self.bot.name, self.number)

    @staticmethod
    def label_of(bot_name: str, number: int) -> str:
        """`name@number`, for rows read as plain values."""
        return f"{bot_name}@{number}"

    def is_builtin(self) -> bool:
        """An engine bot (random, greedy) entered as a version; it plays every game."""
        return bool(self.builtin)

    def save(self, *args: Any, **kwargs: Any) -> None:
        source = bytes(self.source or b"")
        if self.pk is not None:
            stored = BotVersion.objects.filter(pk=self.pk).values_list("source", flat=True).first()
            if stored is not None and bytes(stored) != source:
                raise ValidationError("a bot version is immutable: upload a new version instead of changing source")
        self.sha256 = hashlib.sha256(source).hexdigest()
        self.size = len(source)
        super().save(*args, **kwargs)


class Competition(Clocked):
    """What a ladder and a tournament share: one game, its options and who set it up."""

    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The last rating sequence number handed out: record_result takes the next one under a lock on this row, so
    # rating updates have one serial order that recompute_ratings replays (tournaments/ratings.py).
    rating_seq = models.PositiveIntegerField(default=0, editable=False)
    # The finished matches its StandingsRow lines count: record_result adds one under the same lock; a reader that
    # finds another number of finished matches rebuilds the lines first (tournaments/standings.py).
    standings_matches = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        abstract = True


class Ladder(Competition):
    name = models.CharField(max_length=100, unique=True)
    players_per_match = models.PositiveSmallIntegerField(default=4)
    matchmaking = models.JSONField(default=dict, blank=True,
                                   help_text='e.g. {"exploration": 0.25, "new_games": 5, "window": 3}')
    paused = models.BooleanField(default=False, help_text="a paused ladder makes no new matches")
    is_open = models.BooleanField(default=False, help_text="authors may enter and withdraw their own active versions "
                                                           "themselves (bot page, API)")
    max_queued = models.PositiveSmallIntegerField(default=4, help_text="matches kept queued or running at once")
    entries = models.ManyToManyField(BotVersion, through="LadderEntry", related_name="ladders")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, str] = {}
        _check_game(self.game, self.options, self.players_per_match, errors)
        if "players_per_table" in errors:
            errors["players_per_match"] = errors.pop("players_per_table")
        try:
            from tournaments.formats.ladder import Matchmaking

            Matchmaking.from_settings(self.matchmaking if isinstance(self.matchmaking, dict) else {"?": 0})
        except (ValueError, TypeError) as exc:
            errors["matchmaking"] = str(exc)
        if errors:
            raise ValidationError(errors)


class Tournament(Competition):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss"
        SINGLE_ELIMINATION = "single_elimination", "single elimination"

    class State(models.TextChoices):
        DRAFT = "draft"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=100)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    players_per_table = models.PositiveSmallIntegerField(default=4, validators=[MinValueValidator(1)])
    games_per_set = models.PositiveSmallIntegerField(default=1, validators=[MinValueValidator(1)],
                                                     help_text="games per table, seats rotated")
    rounds = models.PositiveSmallIntegerField(default=0, help_text="Swiss: rounds to play (0: ceil(log2(entries)))")
    best_of = models.PositiveSmallIntegerField(default=1, help_text="single elimination: sets per table (odd)")
    seed = models.BigIntegerField(default=0)
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    current_round = models.PositiveIntegerField(default=0, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)
    entries = models.ManyToManyField(BotVersion, through="Entry", related_name="tournaments")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(players_per_table__gte=1), name="tournament_players_positive"),
            models.CheckConstraint(condition=Q(games_per_set__gte=1), name="tournament_games_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, str] = {}
        _check_game(self.game, self.options, self.players_per_table, errors)
        if self.format == self.Format.SINGLE_ELIMINATION and self.best_of % 2 == 0:
            errors["best_of"] = f"best of {self.best_of} sets can end level; use an odd number"
        if errors:
            raise ValidationError(errors)


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entry_set")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    byes = models.JSONField(default=list, blank=True, help_text="Swiss and elimination: rounds with a bye")
    eliminated_round = models.PositiveIntegerField(null=True, blank=True, help_text="single elimination")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot_version"], name="entry_unique")]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.bot_version} in {self.tournament}"


class LadderEntry(models.Model):
    """A bot version playing on a ladder; withdrawn ones get no new matches."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entry_set")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="ladder_entries")
    joined_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ladder", "bot_version"], name="ladder_entry_unique")]
        verbose_name_plural = "ladder entries"

    def __str__(self) -> str:
        return f"{self.bot_version} on {self.ladder}"


class Match(Clocked):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, null=True, blank=True, related_name="matches")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    round = models.PositiveIntegerField(null=True, blank=True)
    table = models.PositiveIntegerField(null=True, blank=True, help_text="the table within its round")
    set_number = models.PositiveSmallIntegerField(default=0, help_text="elimination: the set within its table")
    game = models.CharField(max_length=32)
    num_players = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Whether its result counts for ratings once it finishes. Only finished matches are ever rated, so a failed or
    # cancelled one never counts; the flag is kept as created so that a requeued try-out stays unrated.
    rated = models.BooleanField(default=True, help_text="its result counts for ratings once it finishes")
    # When it last became queued (created, retried or requeued): the metrics' queue age.
    queued_at = models.DateTimeField(default=timezone.now, db_index=True)
    # The dispatch outbox (tournaments.services): a queued match with no dispatched_at still needs a message; the
    # sender marks it once the broker took one. dispatch_after holds a retried match back (the back-off).
    dispatched_at = models.DateTimeField(null=True, blank=True, editable=False)
    dispatch_after = models.DateTimeField(null=True, blank=True, editable=False)
    # The worker whose infrastructure failure requeued it last: a retry avoids it, and its refund finds it.
    failed_by = models.CharField(max_length=200, blank=True, editable=False)
    # Set when its ratings were applied: the serial order within the competition (Competition.rating_seq).
    rating_seq = models.PositiveIntegerField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A branch (docs/branches.md): an unrated try-out that replays `branch_prefix` (the parent's first steps, then
    # the forced option if any) and plays on from there, in the system's paused "branches <game>" ladder.
    parent = models.ForeignKey("self", on_delete=models.CASCADE, null=True, blank=True, related_name="branches",
                               help_text="the match this one branches from")
    branch_step = models.PositiveIntegerField(null=True, blank=True, help_text="the parent's step it branches at")
    branch_force = models.PositiveIntegerField(null=True, blank=True,
                                               help_text="the option index played as step branch_step, if forced")
    branch_resample = models.BigIntegerField(null=True, blank=True,
                                             help_text="the seed that re-dealt what no seat had seen, if resampled")
    branch_prefix = models.JSONField(default=list, blank=True, editable=False,
                                     help_text="the action records replayed before the bots play")

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(ladder__isnull=False, tournament__isnull=True, round__isnull=True)
                           | Q(ladder__isnull=True, tournament__isnull=False, round__isnull=False)),
                name="match_in_exactly_one_competition",
            ),
            models.CheckConstraint(condition=Q(num_players__gte=1), name="match_players_positive"),
            models.CheckConstraint(condition=Q(parent__isnull=True, branch_step__isnull=True)
                                   | Q(parent__isnull=False, branch_step__isnull=False),
                                   name="match_branch_has_parent_and_step"),
            models.UniqueConstraint(fields=["tournament", "rating_seq"], condition=Q(rating_seq__isnull=False),
                                    name="match_rating_seq_unique_per_tournament"),
            models.UniqueConstraint(fields=["ladder", "rating_seq"], condition=Q(rating_seq__isnull=False),
                                    name="match_rating_seq_unique_per_ladder"),
        ]
        indexes = [
            models.Index(fields=["status", "lease_expires"], name="match_status_lease"),
            models.Index(fields=["dispatch_after"], condition=Q(status="queued", dispatched_at__isnull=True),
                         name="match_outbox"),
            # The keyset reads (tournaments/pages/keyset.py): the newest finished matches for the home page, a
            # ladder's and a tournament's newest, a tournament's rounds and tables a page at a time; none sorts history.
            models.Index(F("finished_at").desc(), F("id").desc(), condition=Q(status="finished"),
                         name="match_finished_recent"),
            models.Index(fields=["ladder", "id"], name="match_ladder_recent"),
            models.Index(fields=["tournament", "id"], name="match_tournament_recent"),
            models.Index(fields=["tournament", "round", "table", "id"], name="match_tournament_round"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.status})"

    @property
    def competition(self) -> Ladder | Tournament:
        competition = self.ladder or self.tournament
        assert competition is not None
        return competition

    def is_done(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.FAILED, self.Status.CANCELLED)

    def branch_point(self) -> dict[str, Any] | None:
        """The replay header's "branch" entry (docs/branches.md), or None for a match that is no branch."""
        if self.parent_id is None:
            return None
        return {"parent": self.parent_id, "step": self.branch_step, "force": self.branch_force,
                "resample": self.branch_resample}


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    score = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    faults = models.PositiveIntegerField(default=0)
    forfeited = models.BooleanField(default=False)
    log = models.TextField(blank=True, help_text="the seat's captured stderr, shown to the bot's owner")
    rating_mu_before = models.FloatField(null=True, blank=True)
    rating_mu_after = models.FloatField(null=True, blank=True)
    rating_sigma_before = models.FloatField(null=True, blank=True)
    rating_sigma_after = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="seat_unique_per_match")]
        # A bot's newest matches (its page, the match lists' bot filter) without reading its whole history.
        indexes = [models.Index(fields=["bot_version", "match"], name="seat_version_match")]

    def __str__(self) -> str:
        return f"seat {self.number} of match {self.match_id}"


class Rating(models.Model):
    """A bot version's OpenSkill rating within one ladder or one tournament."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, null=True, blank=True, related_name="ratings")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="ratings"
    )
    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    seat_record = models.JSONField(
        default=list, blank=True,
        help_text="rated [games, wins] by seat number: the standings' seat fairness figures, kept here so a "
                  "ladder's table need not read its every seat",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-mu"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(ladder__isnull=False, tournament__isnull=True)
                           | Q(ladder__isnull=True, tournament__isnull=False)),
                name="rating_in_exactly_one_competition",
            ),
            models.UniqueConstraint(
                fields=["ladder", "bot_version"], condition=Q(ladder__isnull=False), name="rating_unique_per_ladder"
            ),
            models.UniqueConstraint(
                fields=["tournament", "bot_version"],
                condition=Q(tournament__isnull=False),
                name="rating_unique_per_tournament",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bot_version}: {self.conservative:.1f}"

    @property
    def conservative(self) -> float:
        """The rating shown on tables (tournaments.rating_rule)."""
        return conservative(self.mu, self.sigma)


class StandingsRow(models.Model):
    """A bot version's line in the standings of one ladder or one tournament, from every finished match it played
    there: kept by record_result in the result's transaction, so a table reads one row an entrant
    (tournaments/standings.py, docs/architecture.md#tournaments-ladders-and-ratings)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, null=True, blank=True, related_name="standings_rows")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="standings_rows"
    )
    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="standings_rows")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    points = models.FloatField(default=0.0)
    score_total = models.IntegerField(default=0)
    forfeits = models.PositiveIntegerField(default=0)
    seats = models.JSONField(default=list, blank=True, help_text="[games, wins, points] by seat number")
    rounds = models.JSONField(default=dict, blank=True, help_text="points by round number")
    head_to_head = models.JSONField(default=dict, blank=True,
                                    help_text="by opponent version id: [games ahead, level, behind]")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(ladder__isnull=False, tournament__isnull=True)
                           | Q(ladder__isnull=True, tournament__isnull=False)),
                name="standings_row_in_exactly_one_competition",
            ),
            models.UniqueConstraint(fields=["ladder", "bot_version"], condition=Q(ladder__isnull=False),
                                    name="standings_row_unique_per_ladder"),
            models.UniqueConstraint(fields=["tournament", "bot_version"], condition=Q(tournament__isnull=False),
                                    name="standings_row_unique_per_tournament"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_version}: {self.points:g} points in {self.games} games"


class VersionTest(models.Model):
    """"Is my new version better?": new against base on duplicate deals, stopped by an SPRT (docs/version-tests.md).

    Its matches are unrated games of the system's paused "version tests <game>" ladder, linked by VersionTestGame.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        PASSED = "passed", "passed (H1 accepted: new is better)"
        FAILED = "failed", "failed (H0 accepted: new is not better)"
        CAPPED = "capped", "undecided at the game cap"
        CANCELLED = "cancelled"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="version_tests")
    new = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="tests_as_new")
    base = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="tests_as_base")
    game = models.CharField(max_length=32)
    players = models.PositiveSmallIntegerField(validators=[MinValueValidator(2)])
    options = models.JSONField(default=dict, blank=True)
    field = models.JSONField(default=list, blank=True, help_text="the other seats' bot version ids, in seat order")
    d0 = models.FloatField(help_text="H0: new's score-share lead over base is d0 (e.g. 0)")
    d1 = models.FloatField(help_text="H1: it is d1 (e.g. 0.02: two points of score share)")
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField(help_text="the game cap: stop undecided after this many games")
    batch_deals = models.PositiveSmallIntegerField(default=4, help_text="deals queued at a time")
    # The server's secret: every deal's seed derives from it, so nobody can pick or foresee a deal; shown once the
    # test has ended.
    seed = models.BigIntegerField(editable=False)
    visibility = models.CharField(max_length=8, choices=Bot.Visibility.choices, default=Bot.Visibility.PUBLIC,
                                  help_text="private when any of its versions is: then for its owner and staff only")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    llr = models.FloatField(default=0.0)
    results = models.JSONField(default=dict, blank=True, editable=False,
                               help_text="the tallies (tournaments/version_tests.py): deals, intervals, faults, CPU")
    games_played = models.PositiveIntegerField(default=0, editable=False)
    cpu_ms = models.BigIntegerField(default=0, editable=False, help_text="CPU the versions spent deciding")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(d0__lt=models.F("d1")), name="version_test_d0_below_d1"),
            models.CheckConstraint(condition=Q(players__gte=2), name="version_test_two_players_or_more"),
        ]

    def __str__(self) -> str:
        return f"test {self.pk}: {self.new} against {self.base}"

    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING


class VersionTestGame(models.Model):
    """One game of a test: deal `deal` (its seed), with new and base in the pair of seats `pair`, swapped or not."""

    test = models.ForeignKey(VersionTest, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="version_test_game")
    deal = models.PositiveIntegerField()
    swapped = models.BooleanField(help_text="base sits in new's seat of the deal's first game, and new in base's")
    new_seat = models.PositiveSmallIntegerField()
    base_seat = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["test_id", "deal", "swapped"]
        constraints = [models.UniqueConstraint(fields=["test", "deal", "swapped"], name="version_test_game_unique")]
