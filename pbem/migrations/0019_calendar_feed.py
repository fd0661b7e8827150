from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("pbem", "0018_orders")]

    operations = [
        migrations.AddField(
            model_name="playersettings", name="calendar_generation", field=models.PositiveIntegerField(default=1)
        ),
    ]
