"""LUDUS_TRUSTED_PROXIES: the proxies whose X-Forwarded-For and X-Forwarded-Proto name the client and its scheme.

Read by gunicorn.conf.py (uvicorn's `forwarded_allow_ips`, which rewrites the client address before Django sees the
request) and by the settings, so a bad value stops the web server and `manage.py check` alike. Empty by default:
every request's address is its connection's own (REMOTE_ADDR), which is what the login lockout and the cap on open
feeds count (docs/operations.md#trusted-proxies).
"""

from __future__ import annotations

import ipaddress

from django.core.exceptions import ImproperlyConfigured

from config.env import env_list

NAME = "LUDUS_TRUSTED_PROXIES"


def trusted_proxies() -> list[str]:
    """The trusted proxies' addresses or networks, checked; raises ImproperlyConfigured naming a bad one."""
    items = env_list(NAME, [])
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            # "*" (trust every peer) is refused on purpose: any client could then name any address.
            raise ImproperlyConfigured(f"environment variable {NAME} must list IP addresses or networks "
                                       f"(10.0.0.0/8), got {item!r}") from None
    return items
