"""The Permissions-Policy header: browser features the site never uses are switched off for it.

A script that got onto a page (through a library, say) then cannot ask for
the camera, the visitor's position or payment details, and neither can a
page that frames ours. Content-Security-Policy comes from django-csp
(settings.CONTENT_SECURITY_POLICY).
"""

from django.conf import settings


def permissions_policy(get_response):
    header = ", ".join(f"{feature}=()" for feature in settings.PERMISSIONS_POLICY_DENIED)

    def middleware(request):
        response = get_response(request)
        response.setdefault("Permissions-Policy", header)
        return response

    return middleware
