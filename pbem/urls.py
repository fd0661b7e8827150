from django.http import JsonResponse
from django.urls import path, re_path

from . import health, views
from .api import api

# No app namespace: django-ninja reverses its own "api" namespace from the root.

urlpatterns = [
    path("", views.lobby, name="pbem-lobby"),
    path("health/", health.health, name="pbem-health"),
    path("games/new/", views.new_game, name="pbem-new_game"),
    path("games/<int:game_id>/", views.game_page, name="pbem-game"),
    path("games/<int:game_id>/history/", views.game_history, name="pbem-game_history"),
    path("games/<int:game_id>/audit/", views.game_audit, name="pbem-game_audit"),
    path("invite/<str:token>/", views.invite, name="pbem-invite"),
    path("play/<str:token>/", views.seat_page, name="pbem-seat"),
    path("play/<str:token>/history/", views.seat_history, name="pbem-seat_history"),
    path("api/", api.urls),
    # Anything else under /api/ answers in the API's error shape, not with an HTML page.
    re_path(r"^api/.*$", lambda request: JsonResponse(
        {"code": "not_found", "message": f"There is no API endpoint {request.path}; see /api/docs."}, status=404)),
]
