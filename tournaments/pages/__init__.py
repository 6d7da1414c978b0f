"""The server-rendered pages (docs/architecture.md#api-and-web): home, standings, rounds, match lists, bots and
uploads."""
