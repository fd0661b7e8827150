from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("pbem", "0015_notices_per_turn_and_player_settings")]

    operations = [
        migrations.AddField(model_name="game", name="clock", field=models.JSONField(blank=True, default=dict)),
        migrations.CreateModel(
            name="Outage",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("started_at", models.DateTimeField(unique=True)),
                ("ended_at", models.DateTimeField()),
                ("reason", models.CharField(max_length=300)),
                ("forgiven_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
    ]
