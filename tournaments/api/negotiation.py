"""The API's content negotiation (REST_FRAMEWORK's DEFAULT_CONTENT_NEGOTIATION_CLASS), in a module of its own: DRF
imports it while rest_framework.views is still loading, so it may import nothing that imports the views."""

from rest_framework.negotiation import DefaultContentNegotiation


class QueryFormatIgnored(DefaultContentNegotiation):
    """The API picks its renderer by the Accept header only: `?format=` is no renderer switch, so it stays free for
    filters (a tournament's `?format=swiss`) and an unknown value is never a 404. The schema view keeps DRF's own
    negotiation (`/api/schema/?format=json`)."""

    class settings:  # DefaultContentNegotiation reads only this setting
        URL_FORMAT_OVERRIDE = None
