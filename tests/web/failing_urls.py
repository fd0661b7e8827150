"""The site's URLs plus one page that fails, to see the 500 page a visitor gets."""

from django.urls import path

from pbem.urls import urlpatterns as site


def broken(request):
    raise RuntimeError("a bug in a page")


urlpatterns = [path("broken/", broken), *site]
