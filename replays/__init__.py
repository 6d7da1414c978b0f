"""Replays: the action-log format, storage per match, verification by re-simulation and frames."""
