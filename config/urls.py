from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("mail/", include("pbem.mail.urls")),
    path("", include("pbem.urls")),
]
