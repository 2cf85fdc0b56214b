"""The engine: one machine or property test, start to finish, and the failures it reports.

Discovery, the run loop, shrinking (Hypothesis's, then step deletion), replay, traces and the
example database. It yields events and never prints. May import: the ground floor, evm,
contracts, search, strategies and failures. Never scale, runner, the pytest plugin or the CLI.
"""
