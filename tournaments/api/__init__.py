"""The REST API of the tournaments app (docs/architecture.md#api-and-web): one module per resource, routes in
api/urls.py.

So far: bot uploads and bot versions (api/uploads.py). The rest of the API grows here, module by module.
"""
