"""The sandbox: uploaded bots as processes under bubblewrap.

See docs/architecture.md#bots-the-wire-protocol-and-the-sandbox.
"""
