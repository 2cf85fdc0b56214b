"""Mutation testing: mutants of the project's contracts, judged by its machines and tests (`evmstate mutate`).

operators.py makes mutants on vyper's syntax tree; plan.py chooses the sources and their judges;
tasks.py is what a worker does (the real code's run, a mutant's compile, a mutant's judgement);
cache.py keeps results between runs; report.py is the report (JSON, HTML) and the events that build it; mutation.py
drives it. May import: everything below it (scale, the engine and its floors). Never runner, the pytest
plugin or the CLI.
"""
