"""Compiling: a project's Vyper sources and its precompiled artifacts, each to a contract; importers name the module
they use.

sources (import resolution, release choice, compile_project), build (a project's Build: the
callers' entry), cache (the build cache's files), artifacts, precompiled, releases (pinned vyper
releases), vyper_outputs and legacy_outputs (standalone scripts a release's python runs),
vyper_warnings.
"""
