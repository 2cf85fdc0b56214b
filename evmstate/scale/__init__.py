"""Beyond one process: worker processes for `evmstate run -n`, campaigns (`evmstate fuzz`) over
local workers or a Dask cluster; events.py holds what a campaign emits and its summary.

May import: everything below it (the engine and its floors, reports). Never runner, the pytest
plugin or the CLI. Optional dependencies (distributed, redis) are imported where they are used.
"""
