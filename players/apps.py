from django.apps import AppConfig
from django.db.backends.signals import connection_created


class PlayersConfig(AppConfig):
    name = "players"
    verbose_name = "Players and teams"

    def ready(self):
        from players.search import search_session_prepare

        connection_created.connect(search_session_prepare, dispatch_uid="players.search_session")
