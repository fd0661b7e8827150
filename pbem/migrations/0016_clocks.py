from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("pbem", "0015_notices_per_turn_and_player_settings")]

    operations = [
        migrations.AddField(model_name="game", name="clock", field=models.JSONField(blank=True, default=dict)),
    ]
