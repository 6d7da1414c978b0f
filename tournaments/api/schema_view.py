"""`/api/schema/`, served from one generation per process (a module of its own: drf-spectacular's views import the
API's schema class, tournaments/api/schema.py, while they are defined)."""

from __future__ import annotations

import threading
from typing import Any

from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response


class BuiltOnceSchemaView(SpectacularAPIView):
    """`/api/schema/`: the schema generated once per process, then served as it is.

    drf-spectacular's generation keeps state on the generator and the views it builds, and the ASGI handler runs
    views in threads: concurrent generations answered 500s. Generating takes about 100 ms of CPU for an answer that
    changes only with the code, so the first request builds it under a lock and every later one reuses it.
    """

    _lock = threading.Lock()
    _built: dict[str | None, dict[str, Any]] = {}  # by API version (None: the only one)

    def _get_schema_response(self, request: Any) -> Response:
        version = (self.api_version or request.version
                   or self._get_version_parameter(request))  # type: ignore[no-untyped-call]
        with self._lock:
            if version not in self._built:
                generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
                self._built[version] = generator.get_schema(  # type: ignore[no-untyped-call]
                    request=request, public=self.serve_public)
        filename = self._get_filename(request, version)  # type: ignore[no-untyped-call]
        return Response(data=self._built[version], headers={"Content-Disposition": f'inline; filename="{filename}"'})
