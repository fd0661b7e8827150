"""An API request body over PBEM_API_MAX_BODY_BYTES is answered 413, in the API's error shape,
before anything reads it (a request of 10 MB used to end in a 500); an API query parameter given
more than once is answered 422 (no parameter of the API is a list: django-ninja would read the
last value and answer as if the others were not there)."""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import JsonResponse
from django.utils.decorators import sync_and_async_middleware


def too_large(limit: int) -> JsonResponse:
    return JsonResponse(
        {
            "code": "too_large",
            "message": f"The request body is larger than the API takes ({limit // 1024} KB at most).",
        },
        status=413,
    )


def refused(request) -> JsonResponse | None:
    if request.path.startswith("/api/"):
        limit = settings.PBEM_API_MAX_BODY_BYTES
        length = request.META.get("CONTENT_LENGTH") or "0"
        if not length.isdigit():
            return JsonResponse({"code": "bad_request", "message": "Content-Length is not a number."}, status=400)
        if int(length) > limit:
            return too_large(limit)
        repeated = sorted(name for name, values in request.GET.lists() if len(values) > 1)
        if repeated:
            return JsonResponse(
                {
                    "code": "invalid",
                    "message": f"The request is not valid: the query parameter {repeated[0]!r} is given more than once.",
                    "detail": {"repeated": repeated},
                },
                status=422,
            )
    return None


@sync_and_async_middleware
def api_body_limit(get_response):
    # Both kinds: under ASGI (config.asgi) a sync-only middleware would make Django hold a thread
    # for each request, a long poll's whole wait included.
    if iscoroutinefunction(get_response):

        async def async_middleware(request):
            return refused(request) or await get_response(request)

        return async_middleware

    def middleware(request):
        return refused(request) or get_response(request)

    return middleware


@sync_and_async_middleware
def games_speak_the_request_language(get_response):
    """The games' words (boards, phases, colours on the lobby, spectator, history and audit pages)
    in the request's language: LocaleMiddleware sets Django's from Accept-Language or the cookie,
    this sets the games' (games.i18n) to the same. A seat's page sets its player's own inside."""
    from django.utils import translation

    from games import i18n

    if iscoroutinefunction(get_response):

        async def middleware_async(request):
            with i18n.using(translation.get_language()):
                return await get_response(request)

        return middleware_async

    def middleware(request):
        with i18n.using(translation.get_language()):
            return get_response(request)

    return middleware
