from pathlib import Path

from django.http import FileResponse, JsonResponse
from django.urls import path, re_path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from pbem.web import api, onetap, views

FAVICON = Path(__file__).parent / "static" / "pbem" / "favicon.ico"


@require_safe
@cache_control(public=True, max_age=7 * 24 * 3600)
def favicon(request):
    """Browsers ask every site for /favicon.ico: answered, not logged as a 404 on every page view."""
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


# No app namespace: django-ninja reverses its own "api" namespace from the root.

urlpatterns = [
    path("", views.lobby, name="pbem-lobby"),
    path("games/new/", views.new_game, name="pbem-new_game"),
    path("games/practice/", views.practice, name="pbem-practice"),
    path("games/<int:game_id>/", views.game_page, name="pbem-game"),
    path("games/<int:game_id>/history/", views.game_history, name="pbem-game_history"),
    path("games/<int:game_id>/audit/", views.game_audit, name="pbem-game_audit"),
    path("games/<int:game_id>/log.json", views.game_log, name="pbem-game_log"),
    path("invite/<str:token>/", views.invite, name="pbem-invite"),
    path("play/<str:token>/", views.seat_page, name="pbem-seat"),
    path("play/<str:token>/history/", views.seat_history, name="pbem-seat_history"),
    path("play/<str:token>/wait", views.seat_wait, name="pbem-seat_wait"),
    path("play/<str:token>/log.json", views.seat_log, name="pbem-seat_log"),
    path("play/<str:token>/rest", views.seat_rest, name="pbem-seat_rest"),
    path("play/<str:token>/language", views.seat_language, name="pbem-seat_language"),
    path("play/<str:token>/away", views.seat_away, name="pbem-seat_away"),
    path("play/<str:token>/calendar/new", views.seat_calendar_new, name="pbem-seat_calendar_new"),
    path("play/<str:token>/channels", views.seat_channels, name="pbem-seat_channels"),
    path("calendar/<str:token>.ics", views.calendar_feed, name="pbem-calendar"),
    path("heads.json", views.heads_feed, name="pbem-heads"),
    path("tap/<str:link>/", onetap.tap, name="pbem-tap"),
    path("health/", views.health_check, name="pbem-health"),
    path("favicon.ico", favicon, name="pbem-favicon"),
    path("api/", api.urls()),
    # Anything else under /api/ answers in the API's error shape, not with an HTML page.
    re_path(
        r"^api/.*$",
        lambda request: JsonResponse(
            {"code": "not_found", "message": f"There is no API endpoint {request.path}; see /api/docs."}, status=404
        ),
    ),
]
