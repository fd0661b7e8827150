from django.apps import AppConfig


class PbemConfig(AppConfig):
    name = "pbem"
    verbose_name = "Play by email"
