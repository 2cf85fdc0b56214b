class TallyMachine:
    """Asks for the library module tally by name: it is compiled on its own for this machine."""

    def __init__(cls, tally):
        cls.tally = tally.deploy()

    def rule_nothing(self):
        pass
