"""`ludus`, the command-line client for bot authors (docs/api.md): log in, upload, list bots, request and follow a
match, read standings, download replays. It talks only to the public REST API, over HTTP, so it runs anywhere with
a server URL and a token; nothing here imports Django.

Hand-written rather than generated from /api/schema/: it uses nine operations, and a thin layer over httpx keeps
every API error one line (the API's own `detail` or field messages), which a generated client would leave to each
caller. The schema stays the contract: tests/client runs these commands against a live server.
"""
