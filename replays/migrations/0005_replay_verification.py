import importlib

from django.db import migrations, models

# CREATE INDEX CONCURRENTLY on PostgreSQL, a plain one on SQLite: the match table's migration's operation.
AddIndexConcurrently = importlib.import_module("tournaments.migrations.0012_keyset_indexes").AddIndexConcurrently


class Migration(migrations.Migration):
    # The index is built without locking out writes: the replay table grows with every match (docs/scaling.md).
    atomic = False

    dependencies = [
        ('replays', '0004_replay_store'),
        ('tournaments', '0012_keyset_indexes'),
    ]

    operations = [
        # Every replay stored so far was verified before its result was recorded: they start verified (a column
        # with a constant default is added without rewriting the table), new ones verifying.
        migrations.AddField(
            model_name='replay',
            name='verification',
            field=models.CharField(choices=[('verifying', 'Verifying'), ('verified', 'Verified'), ('mismatch', 'Mismatch')], default='verified', help_text='verifying until re-simulated after the match (replays/verification.py)', max_length=10),
        ),
        migrations.AlterField(
            model_name='replay',
            name='verification',
            field=models.CharField(choices=[('verifying', 'Verifying'), ('verified', 'Verified'), ('mismatch', 'Mismatch')], default='verifying', help_text='verifying until re-simulated after the match (replays/verification.py)', max_length=10),
        ),
        migrations.AddField(
            model_name='replay',
            name='verify_error',
            field=models.TextField(blank=True, default='', help_text='why the replay did not verify (mismatch)'),
        ),
        AddIndexConcurrently(
            model_name='replay',
            index=models.Index(condition=models.Q(('verification', 'verifying')), fields=['created_at'], name='replay_verifying'),
        ),
    ]
