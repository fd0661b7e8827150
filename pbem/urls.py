from django.urls import path

from . import views
from .api import api

app_name = "pbem"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("games/new/", views.new_game, name="new_game"),
    path("games/<int:game_id>/", views.game_page, name="game"),
    path("games/<int:game_id>/history/", views.game_history, name="game_history"),
    path("games/<int:game_id>/audit/", views.game_audit, name="game_audit"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("play/<str:token>/", views.seat_page, name="seat"),
    path("play/<str:token>/history/", views.seat_history, name="seat_history"),
    path("api/", api.urls),
]
