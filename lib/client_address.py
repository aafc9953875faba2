"""Who is asking: the visitor's network address, as far as the site can trust it.

Behind a reverse proxy every request comes from the proxy's address, so
anything counted per address (sign-in failures, reset e-mails, expensive
first requests) would count everybody together. Each proxy appends the
address it was connected from to X-Forwarded-For, and anything before that
came from the visitor, who can write what they like there. So the header is
read only as far as the proxies we run: with TRUSTED_PROXY_COUNT proxies in
front of the site, the client is the entry the outermost of them appended,
the TRUSTED_PROXY_COUNT-th from the right. With the default, 0, the header
is ignored and REMOTE_ADDR is the client (a site served directly).
"""

import ipaddress

from django.conf import settings


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if not forwarded:
        # Not through our proxies at all (a health check on the machine itself): the peer is the client.
        return remote
    # Fewer entries than proxies means the request skipped an outer proxy; the leftmost is then the
    # furthest address any of ours saw, which is the best there is.
    candidate = forwarded[-proxies] if len(forwarded) >= proxies else forwarded[0]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        # Our own proxies write addresses; anything else is not from them.
        return remote
