"""Invoking the evmstate command in-process, as the console script would."""

from click.testing import CliRunner

from evmstate_cli.main import cli


def invoke(*args: str) -> tuple[int, str]:
    """Run main() as the console script would, capturing output and the exit code."""
    runner = CliRunner()
    result = runner.invoke(cli, list(args), catch_exceptions=True, standalone_mode=False)
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # main() maps library errors to exit codes; mirror it here
        from evmstate.errors import EvmStateError

        code = 2 if isinstance(result.exception, EvmStateError) else 3
        return code, result.output + str(result.exception)
    return code, result.output
