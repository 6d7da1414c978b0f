"""The API's JSON parser (REST_FRAMEWORK's DEFAULT_PARSER_CLASSES): a module of its own, since DRF imports it while
its own views module loads."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.parsers import JSONParser


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, with a body nested deeper than Python's decoder goes a 400 like any bad JSON: DRF turns only a
    ValueError into one, and a RecursionError (a body of 100,000 nested arrays, anonymous on the login) was a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - the body is nested too deeply") from None
