"""Imported by multiprocessing's fork server, as the first module it preloads: the server dies with the process that
started it.

The fork server exits by itself once every process holding its pipe is gone (the run and its
workers), but only after it has imported what it preloads, and then slowly (a whole interpreter
to finalize); tied to the run, the kernel kills it the moment the run ends (Linux). Only a
server started from the run's main thread is tied (pool.start_fork_server, cli/launch.py): the
tie is to the thread that started it. Import it nowhere else: importing it ties the importing
process to its parent.
"""

import os

from .lifeline import TIED_TO, die_with_parent

# the process that started the server, as it named itself: one that ended before this line ran (killed the moment it
# started its workers) ends the server here; os.getppid() would name the process that adopted it
die_with_parent(int(os.environ.pop(TIED_TO, os.getppid())))
