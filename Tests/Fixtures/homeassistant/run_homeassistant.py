"""Runs Home Assistant (`hass` with the given arguments) with no signal blocked.

A child started from a Swift test inherits the signal mask of the dispatch thread that started it, where
SIGTERM and SIGINT are blocked; Home Assistant would then never see the SIGTERM that asks it to stop.
"""

import signal
import sys

from homeassistant.__main__ import main

if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    sys.argv = ["hass"] + sys.argv[1:]
    sys.exit(main())
