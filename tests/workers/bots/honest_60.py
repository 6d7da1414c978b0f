"""An honest bot that uses 60 % of its move clock on every move: CPU time of its own (time.process_time), read from
the clock of each decide, then it answers and sleeps on its stdin. Logs `worked <cpu ms> in <wall ms>` a move."""
import sys
import time

import ludus

SHARE = 0.6
bot = ludus.Bot()


def act(view, decision):
    need = SHARE * bot.clock.get("move_ms", 1000) / 1000
    wall, cpu = time.monotonic(), time.process_time()
    while time.process_time() - cpu < need:
        pass
    print(f"worked {(time.process_time() - cpu) * 1000:.0f} in {(time.monotonic() - wall) * 1000:.0f}",
          file=sys.stderr)
    return 0


ludus.run(act, bot=bot)
