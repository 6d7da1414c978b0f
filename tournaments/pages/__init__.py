"""The server-rendered pages (ARCHITECTURE §8): home, standings, rounds, match lists, bots and uploads."""
