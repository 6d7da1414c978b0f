from collections import defaultdict

from django.db import migrations, models


def fill_seat_records(apps, schema_editor):
    """Each rating's seat record from the rated finished matches already played (what rate_seats now keeps)."""
    Rating = apps.get_model("tournaments", "Rating")
    Seat = apps.get_model("tournaments", "Seat")
    records = defaultdict(list)
    seats = Seat.objects.filter(match__status="finished", match__rated=True).values_list(
        "match__ladder_id", "match__tournament_id", "bot_version_id", "number", "rank")
    for ladder_id, tournament_id, version_id, number, rank in seats.iterator():
        record = records[(ladder_id, tournament_id, version_id)]
        record.extend([0, 0] for _ in range(number + 1 - len(record)))
        record[number] = [record[number][0] + 1, record[number][1] + (rank == 1)]
    ratings = list(Rating.objects.all())
    for rating in ratings:
        rating.seat_record = records.get((rating.ladder_id, rating.tournament_id, rating.bot_version_id), [])
    Rating.objects.bulk_update(ratings, ["seat_record"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0004_match_queued_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="seat_record",
            field=models.JSONField(
                blank=True, default=list,
                help_text="rated [games, wins] by seat number: the standings' seat fairness figures, kept here so a "
                          "ladder's table need not read its every seat"),
        ),
        migrations.RunPython(fill_seat_records, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="match",
            name="rated",
            field=models.BooleanField(default=True, help_text="its result counts for ratings once it finishes"),
        ),
    ]
