"""GET /health/: which doors are on, and why the others are off (pbem.doors).

The operations issue extends this with the database, the broker and the timers; the doors'
part is the security issue's: an operator sees at a glance that a door with no secret is off
rather than open on a default."""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from . import doors


@never_cache
def health(request):
    return JsonResponse({"doors": doors.status()})
