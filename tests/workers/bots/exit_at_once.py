"""Hostile: exits before reading anything. The seat dies, forfeits and ranks last; the match completes."""
import sys

sys.exit(0)
